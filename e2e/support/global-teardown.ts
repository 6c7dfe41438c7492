import { rmSync } from "node:fs";

/**
 * Removes what the run made outside the project: the folder the fixture MCP server keeps its notes
 * in, which also holds the reference memory server's file (playwright.config.ts). Runs once, after
 * the last spec, in the runner's process; .ci/run checks that no e2e-mcp-* entry is left in the
 * temporary directory.
 */
export default function removeTemporaryFiles(): void {
  const folder = process.env.E2E_MCP_FIXTURE_DIR;
  // Only a folder this run made: one named by the caller is theirs to keep.
  if (folder && process.env.E2E_MCP_FIXTURE_DIR_IS_OURS === "1") {
    rmSync(folder, { recursive: true, force: true });
  }
}
