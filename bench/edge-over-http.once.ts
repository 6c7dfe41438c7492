// Runs only the edge-over-HTTP figures (DATABASE_URL = a Postgres database, which gains a user, a
// token and runs): for a quick look while working on the edge. `npm run bench` runs them all. Against
// what bench/edge-over-http.ts serves: the production build's server when there is a build.
import { decisionsOverHttp, getOverHttp, openEdge, uncachedTokenVerification } from "./edge-over-http";
import { summaryLine } from "./table";
import { waitingRuns } from "./waiting-runs";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("set DATABASE_URL to a Postgres database");
const decisions = Number(process.env.BENCH_HTTP_DECISIONS ?? 50);
const edge = await openEdge(url);
process.stdout.write(`against ${edge.servedBy}\n`);
const print = (figure: string, samples: number[]) => process.stdout.write(summaryLine(figure, samples));
print("GET /api/health", await getOverHttp(edge, "/api/health", {}));
print("GET /api/inbox?limit=1, token", await getOverHttp(edge, "/api/inbox?limit=1", edge.token));
print("GET /api/inbox?limit=1, session", await getOverHttp(edge, "/api/inbox?limit=1", edge.session));
const uncached = await uncachedTokenVerification(url, edge.token);
print("token verified without the cache", uncached.samples);
process.stdout.write(
  `  statements per request ${uncached.statementsPerRequest}, writes ${uncached.writesPerRequest}\n`,
);
for (const [how, headers] of [
  ["token", edge.token],
  ["session", edge.session],
] as const) {
  const waiting = await waitingRuns(edge.service, decisions + 5);
  // As `npm run bench` does: the garbage of preparing the runs is not the decisions' to collect.
  (globalThis as { gc?: () => void }).gc?.();
  const { toCallStarted, afterAnswer } = await decisionsOverHttp(edge, waiting, headers);
  print(`decision → call_started over HTTP, ${how}`, toCallStarted);
  print("  call_started after the decision's answer", afterAnswer);
}
await edge.close();
process.exit(0);
