/**
 * Runs once when a server instance starts: opens the database and applies
 * migrations before the first request, so no request pays PGlite's start-up.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getDatabase } = await import("./db/client");
  try {
    await getDatabase();
  } catch (error) {
    // The health route reports it; requests retry the open.
    console.error("database failed to open at start-up:", error);
  }
}
