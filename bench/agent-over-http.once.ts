// Runs only the agent-over-HTTP figure (DATABASE_URL = a Postgres database): for a quick look.

import { createRunService } from "@/lib/server/runs/run-service";
import { processMcp } from "@/lib/server/server-context";
import { openDatabase } from "../db/client";
import { agentCallsOverHttp } from "./agent-over-http";
import { summarize } from "./table";

const handle = await openDatabase(
  process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: "memory://" },
);
const service = createRunService(handle, {
  modelEndpoints: { endpoints: new Map(), problem: null },
  mcp: processMcp(),
  execution: { leaseMs: 30_000, instanceId: "bench" },
  log: () => {},
});
const samples = await agentCallsOverHttp(service, 8, Number(process.env.BENCH_REPETITIONS ?? 5));
process.stdout.write(`agent over HTTP, 8 reads: ms per tool call ${JSON.stringify(summarize(samples))}\n`);
await handle.close();
process.exit(0);
