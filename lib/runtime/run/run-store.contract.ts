/**
 * The contract every `RunStore` keeps, as one suite per seam each
 * implementation runs (the in-memory store, PGlite, the Postgres server). A
 * store that passes it can back the run loop and the coordinator; the rule
 * tests rely on nothing else. Import it from a test file and call it inside
 * the file's scope.
 */
import { describeApprovalStoreContract } from "./approval-store.contract";
import { describeRunClaimsContract } from "./run-claims.contract";
import { describeRunEventLogContract } from "./run-event-log.contract";
import type { StoreUnderTest } from "./run-store-fixtures.contract";

export type { StoreUnderTest } from "./run-store-fixtures.contract";

export function describeRunStoreContract(label: string, open: () => Promise<StoreUnderTest>) {
  describeRunEventLogContract(label, open);
  describeRunClaimsContract(label, open);
  describeApprovalStoreContract(label, open);
}
