import { checkDatabaseHealth } from "@/lib/server/check-database-health";

export async function GET() {
  const health = await checkDatabaseHealth();
  if (health.ok) return Response.json(health);
  return Response.json(
    {
      ok: false,
      error: { code: "database_unavailable", message: `The database does not answer: ${health.reason}` },
    },
    { status: 503 },
  );
}
