// The load generator's traffic (issue #35): agents driving runs through the agent API (wide read
// batches, gated writes, failing calls) while approvers decide from the inbox with think times.
// Every run follows a script, so what happened can be checked against it: no call lost or doubled.
import { connect, type ReleasedCall } from "@/lib/agent-client";

export interface LoadOptions {
  /** The instances' base URLs; agent i and approver i use instance i modulo their number. */
  urls: readonly string[];
  /** An agent-role API token. */
  agentToken: string;
  /** An approver's request headers (`Authorization: Bearer …` or a session cookie). */
  approverHeaders: Record<string, string>;
  agents: number;
  runsPerAgent: number;
  /** Reads in the first turn's batch. */
  width: number;
  approvers: number;
  /** An approver's pause between looks at the inbox and before each decision (ms). */
  thinkMs: number;
}

/** What one run's script says, and what happened. */
export interface RunRecord {
  runId: string;
  /** The read that fails in the first turn, if any. */
  failingRead: string | null;
  approve: boolean;
  statuses: string[][];
  finalStatus: string;
}

export interface LoadResult {
  runs: RunRecord[];
  /** How many times each `runId/callId` was executed. */
  executions: Map<string, number>;
  requests: number;
  decisions: number;
  /** Milliseconds per request, by path kind. */
  latencies: Map<string, number[]>;
}

const TOOLS = [
  { name: "lookup", resourceClass: "pure_read", effect: "READ", parameters: { type: "object" } },
  {
    name: "deploy",
    resourceClass: "write",
    effect: "NON_IDEMPOTENT_WRITE",
    approval: "always",
    parameters: { type: "object" },
  },
] as const;

function pathKind(url: string, method: string): string {
  const path = new URL(url).pathname.replace(/[0-9a-f-]{36}/g, "{id}");
  return `${method} ${path}`;
}

/** Runs the traffic to its end; every request is counted and timed by kind. */
export async function driveLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies = new Map<string, number[]>();
  let requests = 0;
  const timedFetch: typeof fetch = async (input, init) => {
    requests += 1;
    const url = input instanceof Request ? input.url : String(input);
    const started = performance.now();
    try {
      return await fetch(input, init);
    } finally {
      const kind = pathKind(url, init?.method ?? "GET");
      const samples = latencies.get(kind) ?? [];
      samples.push(performance.now() - started);
      latencies.set(kind, samples);
    }
  };
  const executions = new Map<string, number>();
  const runs: RunRecord[] = [];
  const scripts = new Map<string, boolean>(); // runId → approve
  const decided = new Set<string>();
  let decisions = 0;
  let agentsDone = 0;

  const agent = async (index: number) => {
    try {
      await agentRuns(index);
    } finally {
      agentsDone += 1; // the approvers stop when every agent is done, or gave up
    }
  };
  const agentRuns = async (index: number) => {
    const url = options.urls[index % options.urls.length] ?? "";
    const client = connect({ url, token: options.agentToken, fetch: timedFetch });
    for (let round = 0; round < options.runsPerAgent; round += 1) {
      const serial = index * options.runsPerAgent + round;
      const failingRead = serial % 3 === 0 ? "r1" : null;
      const approve = serial % 4 !== 1;
      const run = await client.openRun({
        name: `load ${serial}`,
        agent: { name: "load", version: "1" },
        tools: [...TOOLS],
        limits: { maxParallelToolCalls: options.width },
      });
      scripts.set(run.id, approve);
      const execute = async (call: ReleasedCall) => {
        const key = `${run.id}/${call.callId}`;
        executions.set(key, (executions.get(key) ?? 0) + 1);
        if (call.callId === failingRead) throw new Error("the lookup failed (scripted)");
        return { ok: call.callId };
      };
      const reads = Array.from({ length: options.width }, (_, read) => ({
        id: `r${read}`,
        name: "lookup",
        arguments: { key: read },
      }));
      const first = await run.runTurn(reads, { execute });
      const second = await run.runTurn(
        [
          { id: "w", name: "deploy", arguments: { serial } },
          { id: "after", name: "lookup", arguments: { key: "after" } },
        ],
        { execute },
      );
      const end = await run.finish("done");
      runs.push({
        runId: run.id,
        failingRead,
        approve,
        statuses: [first.calls.map((call) => call.status), second.calls.map((call) => call.status)],
        finalStatus: end.status ?? "",
      });
    }
  };

  const approver = async (index: number) => {
    const url = options.urls[index % options.urls.length] ?? "";
    const pause = () => new Promise((resolve) => setTimeout(resolve, options.thinkMs));
    while (agentsDone < options.agents) {
      const response = await timedFetch(`${url}/api/inbox?limit=50`, { headers: options.approverHeaders });
      if (!response.ok) throw new Error(`the inbox: ${response.status} ${await response.text()}`);
      const page = (await response.json()) as {
        items: Array<{ runId: string; pending: { turnDigest: string } | null }>;
      };
      for (const item of page.items) {
        const approve = scripts.get(item.runId);
        if (approve === undefined || !item.pending || decided.has(item.runId)) continue;
        decided.add(item.runId);
        await pause();
        const answer = await timedFetch(`${url}/api/runs/${item.runId}/decision`, {
          method: "POST",
          headers: { ...options.approverHeaders, "content-type": "application/json" },
          body: JSON.stringify(
            approve
              ? { approve: true, turnDigest: item.pending.turnDigest }
              : { approve: false, turnDigest: item.pending.turnDigest, reason: "not now (scripted)" },
          ),
        });
        // Another approver may have won the race to decide it: a 409 is not an error.
        if (answer.ok) decisions += 1;
        else if (answer.status !== 409)
          throw new Error(`a decision: ${answer.status} ${await answer.text()}`);
        await answer.arrayBuffer().catch(() => {});
      }
      await pause();
    }
  };

  await Promise.all([
    ...Array.from({ length: options.agents }, (_, index) => agent(index)),
    ...Array.from({ length: options.approvers }, (_, index) => approver(index)),
  ]);
  return { runs, executions, requests, decisions, latencies };
}

/**
 * What every run's script says should have been executed, and how each call should end; the
 * problems found (none when every run ended as scripted, every call ran exactly as often as it should).
 */
export function checkAgainstScripts(result: LoadResult, options: Pick<LoadOptions, "width">): string[] {
  const problems: string[] = [];
  const expected = new Map<string, number>();
  for (const run of result.runs) {
    const reads = Array.from({ length: options.width }, (_, read) => `r${read}`);
    for (const read of reads) expected.set(`${run.runId}/${read}`, 1);
    const firstWanted = reads.map((read) => (read === run.failingRead ? "error" : "ok"));
    if (JSON.stringify(run.statuses[0]) !== JSON.stringify(firstWanted))
      problems.push(
        `${run.runId}: first turn ${run.statuses[0]?.join(",")}, scripted ${firstWanted.join(",")}`,
      );
    const secondWanted = run.approve ? ["ok", "ok"] : ["denied", "invalidated"];
    if (JSON.stringify(run.statuses[1]) !== JSON.stringify(secondWanted))
      problems.push(
        `${run.runId}: second turn ${run.statuses[1]?.join(",")}, scripted ${secondWanted.join(",")}`,
      );
    if (run.approve) {
      expected.set(`${run.runId}/w`, 1);
      expected.set(`${run.runId}/after`, 1);
    }
    if (run.finalStatus !== "COMPLETED") problems.push(`${run.runId}: ended ${run.finalStatus}`);
  }
  for (const [key, times] of expected) {
    const ran = result.executions.get(key) ?? 0;
    if (ran !== times) problems.push(`${key}: executed ${ran} times, scripted ${times}`);
  }
  for (const [key, ran] of result.executions) {
    if (!expected.has(key)) problems.push(`${key}: executed ${ran} times, never scripted`);
  }
  return problems;
}
