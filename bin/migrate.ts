// `npm run db:migrate`: applies the committed migrations to the configured
// database (DATABASE_URL, or the embedded PGlite folder) and exits.
import { databaseOptionsFromEnv, openDatabase } from "../db/client";

const options = databaseOptionsFromEnv();
const where = options.url ? new URL(options.url).host : `PGlite at ${options.dataDir}`;
try {
  const handle = await openDatabase({ ...options, command: "npm run db:migrate" });
  await handle.close();
  console.error(`Migrations applied (${where}).`);
} catch (error) {
  console.error(`Could not migrate ${where}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
