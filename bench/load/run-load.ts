// `npm run load` (DATABASE_URL = a Postgres database the instances use): ramps the load generator's
// traffic (bench/load/drive-load.ts) until the p99 of the agents' requests that never wait (open a run, report outcomes) passes LOAD_P99_MS, printing one row per
// step with the database's own figures from pg_stat_*, and names the knee: the last step within the
// objective. With LOAD_URLS (comma-separated running instances) and LOAD_AGENT_TOKEN and
// LOAD_APPROVER_TOKEN it drives those; without, it serves the app's routes itself on DATABASE_URL
// (one instance, no Next router) and makes its own accounts. docs/performance.md#the-load-generator.
import postgres from "postgres";
import { AGENT_OWNER_ROLE } from "@/lib/wire/roles";
import { formatRamp, rampLoad, rampOptionsFromEnv } from "./ramp";

async function instances(): Promise<{
  urls: string[];
  agentToken: string;
  approverToken: string;
  close(): Promise<void>;
}> {
  if (process.env.LOAD_URLS) {
    const agentToken = process.env.LOAD_AGENT_TOKEN;
    const approverToken = process.env.LOAD_APPROVER_TOKEN;
    if (!agentToken || !approverToken)
      throw new Error("LOAD_URLS needs LOAD_AGENT_TOKEN and LOAD_APPROVER_TOKEN");
    return { urls: process.env.LOAD_URLS.split(","), agentToken, approverToken, close: async () => {} };
  }
  const { getDatabase } = await import("@/lib/server/database");
  const { createToken, createUser } = await import("@/lib/server/auth/accounts");
  const { getAuth } = await import("@/lib/server/server-context");
  const { agentApiRoutes, serveRoutes } = await import("@/lib/server/testing/serve-routes");
  const auth = await getAuth();
  const { db } = await getDatabase();
  const tokens: Record<string, string> = {};
  for (const role of ["agent", "approver"] as const) {
    const email = `load-${role}-${crypto.randomUUID().slice(0, 8)}@load.example`;
    // The agent's token is an operator's: an agent token works only for someone who may start runs.
    const personRole = role === "agent" ? AGENT_OWNER_ROLE : role;
    await createUser(auth, { email, name: `load ${role}`, password: "load-password-1", role: personRole });
    tokens[role] = (await createToken(auth, db, { email, name: `load ${role}`, role })).token;
  }
  const inbox = await import("@/app/api/inbox/route");
  const decision = await import("@/app/api/runs/[id]/decision/route");
  const server = await serveRoutes([
    ...(await agentApiRoutes()),
    { method: "GET", path: "/api/inbox", handler: inbox.GET },
    { method: "POST", path: "/api/runs/:id/decision", handler: decision.POST },
  ]);
  return {
    urls: [server.url],
    agentToken: tokens.agent ?? "",
    approverToken: tokens.approver ?? "",
    close: server.close,
  };
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write("load: set DATABASE_URL to the Postgres database the instances use\n");
    process.exit(2);
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const target = await instances();
  const options = rampOptionsFromEnv();
  try {
    const ramp = await rampLoad({ ...options, ...target, sql });
    process.stdout.write(formatRamp(ramp, options.p99Ms));
  } finally {
    await target.close();
    await sql.end({ timeout: 5 });
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`load: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
