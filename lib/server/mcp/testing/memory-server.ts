import path from "node:path";

/**
 * The reference MCP memory server (a dev dependency) as an operator would
 * configure it: a child process over stdio, trusted, keeping its graph in
 * `memoryFile`.
 */
export function memoryServerConfig(memoryFile: string) {
  return {
    transport: {
      kind: "stdio" as const,
      command: process.execPath,
      args: [path.join(process.cwd(), "node_modules/@modelcontextprotocol/server-memory/dist/index.js")],
      env: { MEMORY_FILE_PATH: memoryFile },
    },
    trust: "trusted" as const,
  };
}
