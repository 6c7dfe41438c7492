import { expect, test } from "@playwright/test";
import { loadScenario, waitForStatus } from "../pages/api";

// docs/performance.md#small-answers-sent-as-they-are: on the production server, a JSON answer
// under 1 KiB goes out as it is (gzip would cost both ends more than it saves), a larger one is
// still compressed for a client that accepts gzip, as every HTTP library does by default.
const gzip = { "accept-encoding": "gzip" };

test("small JSON answers go out uncompressed, large ones are still gzipped", async ({ request }) => {
  const health = await request.get("/api/health", { headers: gzip });
  expect(health.headers()["content-encoding"]).toBeUndefined();
  expect(health.headers()["cache-control"]).toBe("no-store, no-transform");
  expect(await health.json()).toMatchObject({ ok: true });

  const started = await request.post("/api/runs", {
    data: loadScenario("write-then-read-back.json"),
    headers: gzip,
  });
  expect(started.status()).toBe(201);
  expect(started.headers()["content-encoding"]).toBeUndefined();
  const { runId } = (await started.json()) as { runId: string };

  const refused = await request.get("/api/runs/00000000-0000-4000-8000-000000000000", { headers: gzip });
  expect(refused.status()).toBe(404);
  expect(refused.headers()["content-encoding"]).toBeUndefined();

  // The premise: a run's whole view, once it has reached its barrier, is larger than the threshold.
  // Its size grows with the run's events, so it is read at that outcome, not whenever the request
  // happens to land (CI on a busy machine read it before the first step: 789 bytes).
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const view = await request.get(`/api/runs/${runId}/view`, { headers: gzip });
  expect(view.ok()).toBe(true);
  expect((await view.body()).byteLength).toBeGreaterThan(1024);
  expect(view.headers()["content-encoding"]).toBe("gzip");
  expect(view.headers()["cache-control"] ?? "").not.toContain("no-transform");
});
