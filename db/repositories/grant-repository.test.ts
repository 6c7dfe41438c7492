import { describeGrantStoreContract } from "@/lib/runtime/grants/grant-store.contract";
import { openTestDatabase } from "../testing/test-database";
import { createGrantRepository } from "./grant-repository";

// PGlite by default; the Postgres server with TEST_DATABASE_URL, where the race for the last use is real.
describeGrantStoreContract(process.env.TEST_DATABASE_URL ? "Postgres" : "PGlite", async () => {
  const handle = await openTestDatabase();
  return { store: createGrantRepository(handle.db), close: () => handle.close() };
});
