import "server-only";
import type { Db } from "@/db/client";
import { readActiveRunLogs, readRunScenarios } from "@/db/repositories/insights-queries";
import {
  insertPolicyVersion,
  listPolicyVersions,
  readPublishedVersions,
  type StoredPolicyVersion,
} from "@/db/repositories/policy-repository";
import {
  type ActivePolicy,
  type BacktestHost,
  type BacktestResult,
  backtestPolicy,
  checkPolicy,
  createToolRegistry,
  PolicyRefusedError,
  type PolicySource,
  type RecordedRun,
  readStoredScenario,
} from "@/lib/runtime";
import type { McpServers } from "@/lib/server/mcp/mcp-servers";

export type { StoredPolicyVersion };

/** A document compiled, or refused with every problem (422 `policy_refused`). */
function compileOrRefuse(document: string, version: number | null): ActivePolicy {
  const checked = checkPolicy(document);
  if (!checked.ok) throw new PolicyRefusedError(checked.problems);
  return { version, policy: checked.policy };
}

/**
 * Publishes a version (admins only, checked by the route): refused whole with its problems when
 * it does not check, else stored before it is announced (docs/policies.md#publishing-versions-and-shadow).
 */
export async function publishPolicy(
  db: Db,
  publisher: { id: string; name: string },
  input: { document: string; mode: "live" | "shadow" },
): Promise<StoredPolicyVersion> {
  compileOrRefuse(input.document, null);
  return insertPolicyVersion(db, {
    document: input.document,
    mode: input.mode,
    publishedById: publisher.id,
    publishedByName: publisher.name,
  });
}

export { listPolicyVersions };

/**
 * The published policies as runs read them, compiled once per version. A stored version always
 * checked when published; one that no longer compiles is an operator's problem, said loudly.
 */
export function createPolicySource(db: Db): PolicySource {
  const compiled = new Map<number, ActivePolicy>();
  const activate = (stored: StoredPolicyVersion | null): ActivePolicy | null => {
    if (!stored) return null;
    let active = compiled.get(stored.version);
    if (!active) {
      active = compileOrRefuse(stored.document, stored.version);
      compiled.set(stored.version, active);
    }
    return active;
  };
  return {
    async current() {
      const { live, shadow } = await readPublishedVersions(db);
      return { live: activate(live), shadow: activate(shadow) };
    },
  };
}

/** At most this many runs are replayed by one backtest. */
export const BACKTEST_RUN_LIMIT = 500;

/** What a backtest is asked: a candidate, a time range, and optionally one tool and some runs. */
export interface BacktestInput {
  document: string;
  since: Date;
  until?: Date;
  tool?: string;
  runIds?: readonly string[];
}

const builtIns = createToolRegistry({});

/**
 * Runs a candidate over the runs active in the range (docs/policies.md#backtest). A rule sees the
 * run's agent and metadata from its scenario, a tool's effect as the built-ins or the run's own
 * declarations say now, and an MCP server's trust as the operator's configuration says now.
 */
export async function backtestCandidate(
  db: Db,
  input: BacktestInput,
  mcpServers: McpServers["servers"],
): Promise<BacktestResult & { truncated: boolean }> {
  const candidate = compileOrRefuse(input.document, null);
  const { logs, truncated } = await readActiveRunLogs(db, {
    since: input.since,
    until: input.until ?? new Date(),
    limit: BACKTEST_RUN_LIMIT,
    ...(input.runIds ? { runIds: input.runIds } : {}),
  });
  const stored = await readRunScenarios(
    db,
    logs.map((log) => log.runId),
  );
  // A scenario that no longer decodes leaves its run replayed without it; one named before names were capped still decodes.
  const scenarios = new Map([...stored].map(([runId, scenario]) => [runId, readStoredScenario(scenario)]));
  const recorded: RecordedRun[] = logs.map(({ runId, events }) => {
    const model = scenarios.get(runId)?.model;
    return {
      runId,
      events,
      agent:
        model?.kind === "agent"
          ? { name: model.agent.name, metadata: { ...(model.agent.metadata ?? {}) } }
          : null,
    };
  });
  const host: BacktestHost = {
    describeTool(name, runId) {
      const builtIn = builtIns.get(name);
      if (builtIn) return { effect: builtIn.effect };
      const declared = scenarios.get(runId)?.tools.find((tool) => tool.name === name);
      return declared ? { effect: declared.effect } : undefined;
    },
    // A server no longer configured is trusted no more than one configured without a word on trust.
    trustOf: (server) => mcpServers.get(server)?.trust ?? "untrusted",
  };
  return {
    ...backtestPolicy(candidate, recorded, host, input.tool === undefined ? {} : { tool: input.tool }),
    truncated,
  };
}

export interface ShadowDisagreement {
  runId: string;
  step: number;
  batchIndex: number;
  callId: string;
  toolName: string;
  plannedAt: string;
  live: "allow" | "require" | "deny";
  shadow: "allow" | "require" | "deny";
  shadowVersion: number;
  shadowRule: string | null;
}

/**
 * The calls planned from `since` until `until` (not included; without it, until now) where the
 * shadow policy would have done otherwise than what was done.
 */
export async function listShadowDisagreements(
  db: Db,
  range: { since: Date; until?: Date },
): Promise<ShadowDisagreement[]> {
  const { since, until = new Date() } = range;
  const { logs } = await readActiveRunLogs(db, { since, until, limit: BACKTEST_RUN_LIMIT });
  const found: ShadowDisagreement[] = [];
  for (const { runId, events } of logs) {
    for (const event of events) {
      // Each run's log is whole: its steps planned outside the range are not listed.
      const plannedAt = new Date(event.at);
      if (event.type !== "step_planned" || plannedAt < since || plannedAt >= until) continue;
      for (const call of event.payload.calls) {
        if (!call.shadow) continue;
        const live = call.policy?.effect === "deny" ? "deny" : call.isGated ? "require" : "allow";
        if (live === call.shadow.outcome) continue;
        found.push({
          runId,
          step: event.payload.stepIndex + 1,
          batchIndex: call.batchIndex,
          callId: call.id,
          toolName: call.name,
          plannedAt: event.at,
          live,
          shadow: call.shadow.outcome,
          shadowVersion: call.shadow.version,
          shadowRule: call.shadow.rule,
        });
      }
    }
  }
  return found;
}
