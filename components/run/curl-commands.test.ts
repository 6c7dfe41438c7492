import { describe, expect, it } from "vitest";
import { buildCurlCommands } from "./curl-commands";

const RUN = "00000000-0000-4000-8000-000000000001";

describe("the run page's curl commands", () => {
  it("re-creates the run, says so, and reads the report; no decision when nothing waits", () => {
    const commands = buildCurlCommands({ origin: "http://localhost:3000", runId: RUN, turnDigest: null });
    expect(commands.map((command) => command.id)).toEqual(["rerun", "report"]);
    const [rerun, report] = commands;
    expect(rerun?.effect).toMatch(/Starts a new run/);
    expect(rerun?.command).toBe(
      `curl -s -H "Authorization: Bearer $PLAYGROUND_TOKEN" "http://localhost:3000/api/runs/${RUN}/scenario" | ` +
        `curl -s -H "Authorization: Bearer $PLAYGROUND_TOKEN" -H 'content-type: application/json' --data-binary @- "http://localhost:3000/api/runs"`,
    );
    expect(report?.command).toBe(
      `curl -s -H "Authorization: Bearer $PLAYGROUND_TOKEN" "http://localhost:3000/api/runs/${RUN}/report"`,
    );
  });

  it("decides the waiting turn by its digest, approving or denying with a reply", () => {
    const commands = buildCurlCommands({ origin: "http://h", runId: RUN, turnDigest: "abc123" });
    expect(commands.map((command) => command.id)).toEqual(["rerun", "approve", "deny", "report"]);
    expect(commands[1]?.command).toBe(
      `curl -s -H "Authorization: Bearer $PLAYGROUND_TOKEN" -H 'content-type: application/json' ` +
        `-d '{"approve":true,"turnDigest":"abc123"}' "http://h/api/runs/${RUN}/decision"`,
    );
    expect(commands[2]?.command).toContain(
      `-d '{"approve":false,"turnDigest":"abc123","reason":"why not, or what to do instead"}'`,
    );
  });
});
