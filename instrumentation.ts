/**
 * Runs once when a server instance starts (never during `next build`: Next
 * skips it there, and the database refuses to open at build time anyway).
 * What it starts is in lib/server/ops/start-server-instance.ts, loaded only on
 * Node.js: Next compiles this file for the Edge runtime too.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerInstance } = await import("./lib/server/ops/start-server-instance");
  await startServerInstance();
}
