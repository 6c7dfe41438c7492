import { gzipSync } from "node:zlib";
import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/db/client";
import { runs, toolCalls } from "@/db/schema";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

// What an attacker or a careless client sends, through the real route handlers on the process database.
let handle: DatabaseHandle;
let operator: TestAccount;
let startRoute: typeof import("./runs/route");
let reportRoute: typeof import("./runs/[id]/route");

const setup = setUpRouteTests(["operator"]);

beforeAll(async () => {
  handle = setup.handle;
  ({ operator } = setup.accounts);
  startRoute = await import("./runs/route");
  reportRoute = await import("./runs/[id]/route");
});

const scripted = (overrides: Record<string, unknown> = {}) => ({
  name: "hostile",
  model: { kind: "scripted", turns: [{ calls: [{ name: "finish", arguments: { summary: "done" } }] }] },
  ...overrides,
});

function post(body: BodyInit, headers: Record<string, string> = {}) {
  return startRoute.POST(
    new Request("http://test/api/runs", {
      method: "POST",
      headers: { "content-type": "application/json", ...operator.headers, ...headers },
      body,
      duplex: "half",
    } as RequestInit),
  );
}

async function refusedWith(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = await response.json();
  expect(body).toMatchObject({ error: { code }, pending: null });
  return body.error as { code: string; message: string; issues?: Array<{ path: string; message: string }> };
}

const runCount = async () => (await handle.db.select({ total: count() }).from(runs))[0]?.total ?? 0;

async function waitForReport(runId: string) {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const response = await reportRoute.GET(new Request("http://test", { headers: operator.headers }), {
      params: Promise.resolve({ id: runId }),
    });
    const report = await response.json();
    if (report.status !== "RUNNING") return report;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`run ${runId} never stopped running`);
}

describe("the HTTP boundary refuses hostile bodies with a clear 4xx and stores nothing", () => {
  it("refuses a body that is not application/json with 415", async () => {
    const before = await runCount();
    const error = await refusedWith(
      await post(JSON.stringify(scripted()), { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
    expect(error.message).toMatch(/application\/json \(got text\/plain\)/);
    expect(await runCount()).toBe(before);
  });

  it("refuses a compressed body with 415 naming Content-Encoding, before reading it", async () => {
    const before = await runCount();
    const compressed = gzipSync(JSON.stringify(scripted()));
    for (const encoding of ["gzip", "br", "identity, gzip"]) {
      const error = await refusedWith(
        await post(compressed, { "content-encoding": encoding }),
        415,
        "unsupported_media_type",
      );
      expect(error.message).toBe(
        `The body is sent with Content-Encoding: ${encoding}, which this server does not decode: send it uncompressed (no Content-Encoding header, or identity).`,
      );
    }
    expect(await runCount()).toBe(before);
    expect((await post(JSON.stringify(scripted()), { "content-encoding": "Identity" })).status).toBe(201);
  });

  it("refuses requests from another site with 403, and lets same-origin and non-browser clients in", async () => {
    await refusedWith(
      await post(JSON.stringify(scripted()), { "sec-fetch-site": "cross-site" }),
      403,
      "forbidden",
    );
    await refusedWith(
      await post(JSON.stringify(scripted()), { origin: "https://evil.example" }),
      403,
      "forbidden",
    );
    await refusedWith(await post(JSON.stringify(scripted()), { origin: "null" }), 403, "forbidden");
    const sameOrigin = await post(JSON.stringify(scripted()), {
      host: "test",
      origin: "http://test",
      "sec-fetch-site": "same-origin",
    });
    expect(sameOrigin.status).toBe(201);
    expect((await post(JSON.stringify(scripted()))).status).toBe(201);
  });

  it("refuses a body over the 2 MiB limit with 413, declared or not", async () => {
    const huge = JSON.stringify(scripted({ workspace: { "big.txt": "x".repeat(3 * 1024 * 1024) } }));
    await refusedWith(await post(huge), 413, "payload_too_large");
    // No content-length: the stream is counted as it is read and cut off at the limit.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(huge));
        controller.close();
      },
    });
    await refusedWith(await post(stream), 413, "payload_too_large");
  });

  it("refuses deep nesting, invalid UTF-8 and broken JSON with 400, never a stack overflow", async () => {
    const deep = `{"name":"deep","model":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const nested = await refusedWith(await post(deep), 400, "invalid_request");
    expect(nested.message).toMatch(/nests deeper than 64 levels/);
    await refusedWith(await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), 400, "invalid_request");
    await refusedWith(await post("{nope"), 400, "invalid_request");
  });

  it("refuses NUL characters and lone surrogates with 400 naming the field", async () => {
    const before = await runCount();
    const nul = await refusedWith(
      await post(JSON.stringify(scripted({ name: "a\u0000b" }))),
      400,
      "invalid_request",
    );
    expect(nul.issues).toEqual([{ path: "name", message: expect.stringMatching(/NUL character/) }]);
    const surrogate = await refusedWith(
      await post(JSON.stringify(scripted({ workspace: { "notes.md": "half \ud83d of a pair" } }))),
      400,
      "invalid_request",
    );
    expect(surrogate.issues?.[0]?.path).toBe('workspace["notes.md"]');
    const key = await refusedWith(
      await post(JSON.stringify(scripted({ workspace: { "a\u0000.txt": "x" } }))),
      400,
      "invalid_request",
    );
    expect(key.message).toMatch(/key that contains a NUL/);
    expect(await runCount()).toBe(before);
  });

  it("gives a model's NUL and lone surrogates an error result, never a stuck run", async () => {
    const started = await post(
      JSON.stringify(
        scripted({
          model: {
            kind: "scripted",
            turns: [
              {
                text: "trying",
                calls: [
                  { id: "n", name: "write_file", arguments: '{"path":"a\\u0000.txt","content":"x"}' },
                  { id: "s", name: "memory_set", arguments: '{"key":"k","value":"\\ud800"}' },
                  { id: "r", name: "list_files", arguments: "{}" },
                ],
              },
              { calls: [{ name: "finish", arguments: { summary: "done" } }] },
            ],
          },
          approvals: { write_file: "never" },
        }),
      ),
    );
    expect(started.status).toBe(201);
    const report = await waitForReport((await started.json()).runId);
    expect(report.status).toBe("COMPLETED");
    expect(report.steps[0].calls.map((call: { status: string }) => call.status)).toEqual([
      "not_dispatched",
      "not_dispatched",
      "ok",
    ]);
    expect(report.steps[0].calls[0].error.message).toMatch(/NUL character/);
    expect(report.steps[0].calls[1].error.message).toMatch(/unpaired surrogate/);
  });

  it("stores a batch of 8,192 calls (more than one INSERT may bind) and keeps SQL out of the report", async () => {
    const calls = Array.from({ length: 8192 }, (_, index) => ({
      id: `c${index}`,
      name: "no_such_tool",
      arguments: "{}",
    }));
    const started = await post(
      JSON.stringify(
        scripted({
          model: {
            kind: "scripted",
            turns: [{ calls }, { calls: [{ name: "finish", arguments: { summary: "done" } }] }],
          },
        }),
      ),
    );
    expect(started.status).toBe(201);
    const { runId } = await started.json();
    const report = await waitForReport(runId);
    expect(report.status).toBe("COMPLETED");
    expect(report.steps[0].plan.kind).toBe("repair");
    const [stored] = await handle.db
      .select({ total: count() })
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, runId), eq(toolCalls.stepIndex, 0)));
    expect(stored?.total).toBe(8192);
    expect(JSON.stringify(report)).not.toMatch(/insert into|select |Failed query/i);
  });
});
