import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";

let admin: TestAccount;
const setup = setUpRouteTests(["admin"]);

beforeAll(async () => {
  vi.stubEnv("PLAYGROUND_FAULTS", "");
  ({ admin } = setup.accounts);
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

describe("/api/faults without PLAYGROUND_FAULTS=1", () => {
  it("does not exist: nothing can be injected", async () => {
    const { GET, POST } = await import("./route");
    expect((await GET(new Request("http://test/api/faults", { headers: admin.headers }))).status).toBe(404);
    const armed = await POST(
      new Request("http://test/api/faults", {
        method: "POST",
        headers: { "content-type": "application/json", ...admin.headers },
        body: JSON.stringify({ target: "approvals", failNext: 1 }),
      }),
    );
    expect(armed.status).toBe(404);
    expect((await armed.json()).error.code).toBe("not_found");
    const streams = await import("./streams/route");
    expect(
      (await streams.POST(new Request("http://test", { method: "POST", headers: admin.headers }))).status,
    ).toBe(404);
    const unreadable = await import("./unreadable-state/route");
    const corrupt = await unreadable.POST(
      new Request("http://test", {
        method: "POST",
        headers: { "content-type": "application/json", ...admin.headers },
        body: JSON.stringify({ runId: crypto.randomUUID() }),
      }),
    );
    expect(corrupt.status).toBe(404);
  });
});
