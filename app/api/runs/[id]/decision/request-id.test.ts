import { sql } from "drizzle-orm";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toErrorBody } from "@/lib/http/error-response";
import { withoutQueryParameters } from "@/lib/server/ops/logger";
import type { RunService } from "@/lib/server/runs/run-service";
import { type CapturedLog, captureLog } from "@/lib/server/testing/captured-log";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

let approver: TestAccount;
let service: RunService;
let route: typeof import("./route");
let log: CapturedLog;

const setup = setUpRouteTests(["approver"]);

beforeAll(async () => {
  ({ approver } = setup.accounts);
  route = await import("./route");
  service = await setup.runService();
});
beforeEach(() => {
  log = captureLog("info"); // tests run the server's logger at warn
});
afterEach(() => {
  log.restore();
});

async function decideStale(headers: Record<string, string> = {}) {
  const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario("request ids")));
  await settled;
  const response = await route.POST(
    new Request(`http://test/api/runs/${runId}/decision`, {
      method: "POST",
      headers: { ...approver.headers, "content-type": "application/json", ...headers },
      body: JSON.stringify({ approve: false, turnDigest: "f".repeat(64), reason: "private words" }),
    }),
    { params: Promise.resolve({ id: runId }) },
  );
  return { runId, response };
}

describe("a request's id, in its response and its log lines", () => {
  it("logs a refused decision with the id the response carries, its code and who asked, and nothing they wrote", async () => {
    const { runId, response } = await decideStale();
    expect(response.status).toBe(409);
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const line = log.lines.find((candidate) => candidate.requestId === requestId);
    expect(line).toMatchObject({
      level: "info",
      msg: "request refused",
      method: "POST",
      path: `/api/runs/${runId}/decision`,
      status: 409,
      code: "stale_turn",
      userId: approver.userId,
      time: expect.any(String),
    });
    expect(JSON.stringify(log.lines)).not.toContain("private words");
    expect(JSON.stringify(log.lines)).not.toContain(approver.token);
  });

  it("keeps a caller's own X-Request-Id, and replaces one that is not a plain token", async () => {
    const kept = await decideStale({ "x-request-id": "proxy-7f3a9c01" });
    expect(kept.response.headers.get("x-request-id")).toBe("proxy-7f3a9c01");
    const replaced = await decideStale({ "x-request-id": "bad id with spaces" });
    expect(replaced.response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("says which request to quote when something unexpected goes wrong, and logs its stack under that id", () => {
    const { status, body } = toErrorBody(new Error("connection reset by a test"), "req-12345678");
    expect(status).toBe(500);
    expect(body.error).toEqual({
      code: "internal_error",
      message: "Something went wrong on the server; it has been logged as request req-12345678.",
      requestId: "req-12345678",
    });
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        requestId: "req-12345678",
        err: expect.objectContaining({ message: "connection reset by a test", stack: expect.any(String) }),
      }),
    );
  });
});

describe("what logs never hold", () => {
  it("cuts a failed query's parameters (what runs wrote) from messages, stacks and details", async () => {
    const { getLogger } = await import("@/lib/server/ops/logger");
    const failed = new Error(
      "Failed query: insert into workspace_files values ($1, $2)\nparams: run-1,TOP SECRET CONTENT",
    );
    getLogger().error({ err: failed, detail: String(failed) }, "a write failed");
    const line = JSON.stringify(log.lines.at(-1));
    expect(line).not.toContain("TOP SECRET CONTENT");
    expect(line).toContain("params: [not logged]");
    expect(line).toContain("insert into workspace_files");
    expect(withoutQueryParameters("no parameters here")).toBe("no parameters here");
  });

  it("cuts the values the database quotes in a refused write's detail: a failing row, a duplicate key", async () => {
    const { getLogger } = await import("@/lib/server/ops/logger");
    const { db } = setup.handle;
    await db.execute(
      sql`create table quoted_values (id text primary key, body text check (length(body) < 9))`,
    );
    const failures = [
      sql`insert into quoted_values values ('a', ${"TOP SECRET ROW"})`,
      sql`insert into quoted_values values (${"TOP SECRET KEY"}, 'b'), (${"TOP SECRET KEY"}, 'c')`,
    ];
    for (const failing of failures) {
      const error = await db.execute(failing).then(
        () => expect.unreachable("the write was refused"),
        (refused: unknown) => refused as Error,
      );
      // As drizzle throws it, and the driver's own error, as a failed commit throws it, unwrapped.
      getLogger().error({ err: error }, "a write failed");
      getLogger().error({ err: error.cause }, "a commit failed");
    }
    const lines = log.lines.map((line) => JSON.stringify(line));
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).not.toContain("TOP SECRET");
    // What it was and where stays: the constraint (PGlite's `constraint`, postgres.js's
    // `constraint_name`), and which key.
    expect(lines[1]).toContain('"quoted_values_body_check"');
    expect(log.lines[1]).toMatchObject({ err: { detail: "Failing row contains [not logged]." } });
    expect(lines[3]).toContain('"quoted_values_pkey"');
    expect(log.lines[3]).toMatchObject({ err: { detail: "Key (id)=[not logged] already exists." } });
  });
});
