import { expect } from "vitest";
import type { PendingTurnView } from "@/lib/runtime/events/run-view";
import type { TestAccount } from "./test-accounts";

/**
 * A person's side of an agent's run in tests, through the people's HTTP
 * routes (what the browser's inbox and cancel button call): wait for the
 * run's pending approval, decide it, cancel the run.
 */
export async function waitForPendingApproval(runId: string): Promise<PendingTurnView> {
  const { getRunService } = await import("@/lib/server/server-context");
  const service = await getRunService();
  let pending: PendingTurnView | null = null;
  await expect
    .poll(async () => {
      pending = (await service.loadView(runId))?.pending ?? null;
      return pending !== null;
    })
    .toBe(true);
  if (!pending) throw new Error(`run ${runId} has no pending approval`);
  return pending;
}

/** Decides the run's pending approval as `person` (an approver), after waiting for it. */
export async function decidePending(
  runId: string,
  person: TestAccount,
  decision: { approve: boolean; editedArguments?: Record<string, unknown>; reason?: string },
): Promise<PendingTurnView> {
  const pending = await waitForPendingApproval(runId);
  const route = await import("@/app/api/runs/[id]/decision/route");
  const response = await route.POST(
    new Request("http://test/api", {
      method: "POST",
      headers: { "content-type": "application/json", ...person.headers },
      body: JSON.stringify({ ...decision, turnDigest: pending.turnDigest }),
    }),
    { params: Promise.resolve({ id: runId }) },
  );
  expect(response.status, await response.clone().text()).toBe(200);
  return pending;
}

/** Cancels the whole run as `person` (an operator), as the run page's Cancel does. */
export async function cancelRunAsPerson(runId: string, person: TestAccount): Promise<void> {
  const route = await import("@/app/api/runs/[id]/cancel/route");
  const response = await route.POST(
    new Request("http://test/api", {
      method: "POST",
      headers: { "content-type": "application/json", ...person.headers },
      body: JSON.stringify({ scope: "run" }),
    }),
    { params: Promise.resolve({ id: runId }) },
  );
  expect(response.status, await response.clone().text()).toBe(200);
}
