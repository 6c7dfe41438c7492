import { beforeAll, describe, expect, it } from "vitest";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

let viewer: TestAccount;
let service: RunService;
let route: typeof import("./route");
let runId: string;

const setup = setUpRouteTests(["viewer"]);

beforeAll(async () => {
  ({ viewer } = setup.accounts);
  route = await import("./route");
  service = await setup.runService();
  const started = await service.startRun(
    buildScenario({
      ...gatedWriteScenario("file preview"),
      workspace: { "notes/a.txt": "line 1\nline 2\n" },
    }),
  );
  await started.settled;
  runId = started.runId;
});

const read = async (id: string, query: string) => {
  const response = await route.GET(
    new Request(`http://test/api/runs/${id}/files${query}`, { headers: viewer.headers }),
    { params: Promise.resolve({ id }) },
  );
  return { status: response.status, body: await response.json() };
};

describe("GET /api/runs/[id]/files reads the run's workspace as it is now", () => {
  it("answers a file's content under its normalised path, and null for a file that does not exist", async () => {
    expect(await read(runId, "?path=notes/a.txt")).toEqual({
      status: 200,
      body: { path: "notes/a.txt", content: "line 1\nline 2\n" },
    });
    expect((await read(runId, "?path=./notes//a.txt")).body).toEqual({
      path: "notes/a.txt",
      content: "line 1\nline 2\n",
    });
    expect((await read(runId, "?path=new.txt")).body).toEqual({ path: "new.txt", content: null });
  });

  it.each([
    ["", "is required"],
    ["?path=../../etc/passwd", "escapes the workspace"],
    ["?path=%00", "contains a NUL byte"],
  ])("refuses %s with a 400 whose issue names path", async (query, message) => {
    const { status, body } = await read(runId, query);
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.issues).toEqual([{ path: "path", message: expect.stringContaining(message) }]);
    expect(body.error.message).toContain(`path: ${body.error.issues[0].message}`);
  });

  it("answers 404 for a run that does not exist", async () => {
    const { status, body } = await read(crypto.randomUUID(), "?path=a.txt");
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });
});
