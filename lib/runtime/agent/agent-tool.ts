import { ToolError } from "../errors";
import type { CustomToolDeclaration } from "../tools/custom-tool-declaration";
import type { JsonSchemaObject, ToolDefinition } from "../tools/tool-definition";
import type { AgentMailbox, AgentRelease, AgentReport } from "./agent-mailbox";

/** How an agent's tool waits for its report. */
export interface AgentToolOptions {
  mailbox: AgentMailbox;
  /** How long a release holds without a report or heartbeat before it lapses. */
  releaseLeaseMs: number;
  /** How often to read the mailbox again for changes made by other instances. */
  pollMs: number;
  now(): number;
}

/**
 * The abort reason of a worker whose claim another worker took over: it
 * stops, and leaves its open releases to the new holder (a cancel closes them).
 */
export const CLAIM_LOST = "claim_lost";

/** The error of a non-idempotent call whose release lapsed: the agent may have run it; it is never released again. */
export const INTERRUPTED_CODE = "interrupted";

/**
 * A tool the agent executes itself (`executor: "agent"`), declared like a
 * scenario's custom tool. Executing a call releases it to the agent and waits
 * for the agent's report, which becomes the call's outcome:
 *
 * - a call already reported (a worker that took the run over) answers with that report;
 * - a call whose release is still open is waited on, not released again;
 * - a release that lapses is released again (next attempt, new token) when the
 *   tool is idempotent (`READ`, `IDEMPOTENT_WRITE`); otherwise the call
 *   settles `error`/`interrupted` and is never released again;
 * - a cancellation closes the open release (the agent's later report is refused),
 *   unless the report won the race, which then stands.
 */
export function createAgentTool(
  declaration: CustomToolDeclaration,
  options: AgentToolOptions,
): ToolDefinition {
  const isIdempotent = declaration.effect !== "NON_IDEMPOTENT_WRITE";
  return {
    name: declaration.name,
    description: declaration.description,
    parameters: declaration.parameters as JsonSchemaObject,
    resourceClass: declaration.resourceClass,
    effect: declaration.effect,
    approval: declaration.approval,
    ...(declaration.approvalTimeoutSeconds === undefined
      ? {}
      : { approvalTimeoutSeconds: declaration.approvalTimeoutSeconds }),
    async execute(_args, context) {
      const call = context.call;
      if (!call)
        throw new ToolError(`${declaration.name} is executed by the agent, which needs the call's identity.`);
      const { mailbox } = options;
      const where = { stepIndex: call.stepIndex, batchIndex: call.batchIndex };
      for (;;) {
        const known = await mailbox.listReleases(call.runId, where);
        const reported = known.find((release) => release.state === "reported");
        if (reported?.report) return outcomeOf(reported.report);
        let open = known.find((release) => release.state === "released");
        let justReleased: WaitForReport | null = null;
        if (!open) {
          if (known.some((release) => release.state === "lapsed") && !isIdempotent)
            throw interrupted(declaration.name);
          if (context.signal.aborted)
            throw new ToolError(`${declaration.name} was cancelled before it was released.`, {
              outcomeCode: "cancelled",
            });
          const attempt = known.reduce((highest, release) => Math.max(highest, release.attempt), 0) + 1;
          const release = {
            runId: call.runId,
            stepIndex: call.stepIndex,
            batchIndex: call.batchIndex,
            attempt,
            token: `rel_${crypto.randomUUID().replaceAll("-", "")}`,
            callId: call.id,
            name: call.name,
            arguments: call.arguments,
            leaseExpiresAt: new Date(options.now() + options.releaseLeaseMs).toISOString(),
          };
          // Waiting from before the release is stored: the agent may see it and report at once, and a
          // report's wake-up finds only a wait already begun (begun after, the call sat out the poll).
          const firstWait = beginWaitForReport(mailbox, release.token, options.pollMs, context.signal);
          // Another worker released this attempt at the same moment: read again and wait on theirs.
          if (!(await mailbox.createRelease(release))) {
            firstWait.stop();
            continue;
          }
          open = { ...release, state: "released", report: null, reportDigest: null };
          justReleased = firstWait;
        }
        const settled = await awaitReport(open, context.signal, options, justReleased);
        if (settled === "again") continue;
        if (settled === "interrupted") throw interrupted(declaration.name);
        return outcomeOf(settled);
      }
    },
  };
}

/**
 * Waits on one open release until it is reported, lapses or is cancelled.
 * A release this worker has just made is known to be open: the first read
 * waits for a change (a wave's worth of reads saved before the agent has
 * even seen its releases).
 */
async function awaitReport(
  release: AgentRelease,
  signal: AbortSignal,
  options: AgentToolOptions,
  justReleased: WaitForReport | null,
): Promise<AgentReport | "again" | "interrupted"> {
  const { mailbox } = options;
  if (justReleased) await justReleased.woken;
  for (;;) {
    // Begun before the read, so a report that lands while the read is on its way wakes it.
    const wait = beginWaitForReport(mailbox, release.token, options.pollMs, signal);
    try {
      // A read that fails (the database away for a moment) is tried again: the release still stands.
      const current = await mailbox.readRelease(release.token).catch(() => "unread" as const);
      if (current === "unread") {
        await wait.woken;
        if (!signal.aborted) continue;
        if (await mailbox.closeRelease(release.token, { state: "cancelled" }).catch(() => false)) {
          throw new ToolError(
            `${release.name} was cancelled while the agent held it; its report will be refused.`,
            {
              outcomeCode: "cancelled",
            },
          );
        }
        continue;
      }
      if (!current) return "again";
      if (current.state === "reported" && current.report) return current.report;
      if (current.state !== "released") return "again";
      if (signal.aborted && signal.reason === CLAIM_LOST) {
        throw new ToolError(`${release.name} is left to the worker that took the run over.`, {
          outcomeCode: "cancelled",
        });
      }
      if (signal.aborted) {
        if (await mailbox.closeRelease(release.token, { state: "cancelled" })) {
          throw new ToolError(
            `${release.name} was cancelled while the agent held it; its report will be refused.`,
            {
              outcomeCode: "cancelled",
            },
          );
        }
        continue; // the report came first: it stands
      }
      const left = Date.parse(current.leaseExpiresAt) - options.now();
      if (left <= 0) {
        const lapsedBy = new Date(options.now()).toISOString();
        if (await mailbox.closeRelease(release.token, { state: "lapsed", lapsedBy })) {
          // The caller decides: an idempotent call is released again, any other is interrupted.
          return "again";
        }
        continue;
      }
      // A lease that runs out before the poll is read again as it runs out.
      if (left + 1 < options.pollMs) {
        wait.stop();
        await mailbox.waitForRelease(release.token, left + 1, signal);
      } else await wait.woken;
    } finally {
      wait.stop();
    }
  }
}

interface WaitForReport {
  /** Settles at the release's next change in this process, the poll's end, or the signal. */
  woken: Promise<void>;
  /** Ends the wait now (nothing is left waiting). */
  stop(): void;
}

/** A wait on a release begun now: a report from this moment on wakes it. */
function beginWaitForReport(
  mailbox: AgentToolOptions["mailbox"],
  token: string,
  timeoutMs: number,
  signal: AbortSignal,
): WaitForReport {
  const stopped = new AbortController();
  const woken = mailbox.waitForRelease(token, timeoutMs, AbortSignal.any([signal, stopped.signal]));
  return { woken, stop: () => stopped.abort() };
}

function outcomeOf(report: AgentReport): unknown {
  if (report.ok) return report.result;
  throw new ToolError(report.error.message, { outcomeCode: report.error.code ?? "agent_error" });
}

function interrupted(name: string): ToolError {
  return new ToolError(
    `The agent's release of ${name} lapsed before it reported; it may or may not have run, and it is not released again.`,
    { outcomeCode: INTERRUPTED_CODE },
  );
}
