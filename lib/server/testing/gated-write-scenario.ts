/**
 * The smallest run that waits: a gated write, then a read of what it wrote,
 * then finish. As a user would send it (scenario JSON input, defaults unfilled).
 */
export function gatedWriteScenario(name: string) {
  return {
    name,
    model: {
      kind: "scripted" as const,
      turns: [
        {
          calls: [
            { name: "write_file", arguments: { path: "a.txt", content: "A" } },
            { name: "read_file", arguments: { path: "a.txt" } },
          ],
        },
        { calls: [{ name: "finish", arguments: { summary: "ok" } }] },
      ],
    },
  };
}
