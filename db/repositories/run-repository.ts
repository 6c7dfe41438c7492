import type { RunStore } from "@/lib/runtime";
import type { Db } from "../client";
import { createApprovalRepository } from "./approval-repository";
import { guardRunStore } from "./guard-run-store";
import { createRunClaimsRepository } from "./run-claims-repository";
import { createRunEventLogRepository } from "./run-event-log-repository";

export { RUN_CANCELS_CHANNEL } from "./run-rows";

/**
 * The runtime's `RunStore` over drizzle, for PGlite and Postgres alike: its
 * three seams (the run and its event log, claims and leases, approvals), with
 * transient failures tried again or turned into `StoreUnavailableError`
 * (`guardRunStore`).
 */
export function createRunRepository(db: Db): RunStore {
  return guardRunStore({
    ...createRunEventLogRepository(db),
    ...createRunClaimsRepository(db),
    ...createApprovalRepository(db),
  });
}
