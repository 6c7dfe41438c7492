import { describeRunStoreContract } from "@/lib/runtime/run/run-store.contract";
import { openTestDatabase, testDriverName } from "../testing/test-database";
import { createRunRepository } from "./run-repository";

describeRunStoreContract(testDriverName, async () => {
  const handle = await openTestDatabase();
  return { store: createRunRepository(handle.db), close: () => handle.close() };
});
