/**
 * What the three framework examples share (docs/agents.md): their command
 * line, the two tools they declare to the playground, and those tools'
 * implementations, which read and write files in one local folder.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { OpenRunInput } from "../../lib/agent-client";

export function readCommandLine() {
  const { values } = parseArgs({
    options: {
      server: { type: "string", default: process.env.PLAYGROUND_URL ?? "http://127.0.0.1:3000" },
      "model-url": { type: "string", default: process.env.MODEL_URL ?? "http://127.0.0.1:4010/v1" },
      folder: { type: "string", default: "." },
    },
  });
  const token = process.env.PLAYGROUND_TOKEN;
  if (!token) throw new Error("Set PLAYGROUND_TOKEN to a token made with --role agent (docs/agent-api.md).");
  return { server: values.server, modelUrl: values["model-url"], folder: values.folder, token };
}

export const TASK = "Read a.md, b.md and c.md, then write their lines to summary.md.";

export const READ_DESCRIPTION = "Reads a text file of the folder.";
export const WRITE_DESCRIPTION = "Writes a text file of the folder. A person approves each write.";

/** The tools as the playground plans them: reads run in parallel, each write waits for a person. */
export const DECLARATIONS = [
  {
    name: "read_local_file",
    description: READ_DESCRIPTION,
    resourceClass: "pure_read",
    effect: "READ",
    approval: "never",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "write_local_file",
    description: WRITE_DESCRIPTION,
    resourceClass: "write",
    effect: "IDEMPOTENT_WRITE",
    approval: "always",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  },
] satisfies OpenRunInput["tools"];

/** A path inside `folder`, or an error the model can read. */
function inside(folder: string, path: string): string {
  const full = resolve(folder, path);
  if (relative(resolve(folder), full).startsWith("..")) throw new Error(`${path} is outside the folder`);
  return full;
}

export const readLocalFile = (folder: string, input: { path: string }) =>
  readFile(inside(folder, input.path), "utf8");

export async function writeLocalFile(folder: string, input: { path: string; content: string }) {
  const full = inside(folder, input.path);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, input.content);
  return `wrote ${input.content.length} characters to ${join(".", input.path)}`;
}
