import { compileGrantCondition } from "../grants/grant-condition";
import { grantRequestSchema, newToolGrant, type ToolGrant } from "../grants/tool-grant";
import { declaresWrite } from "../planner/declares-write";
import { type PreflightedCall, preflightCall } from "../planner/preflight";
import { describeApprovers, mayDecideCall } from "../policy/who-may-decide";
import { barrierOf, gatesOf } from "../run/execute-step";
import { driveRun } from "../run/run-loop";
import type { RunRecord } from "../run/run-records";
import type { PendingTurn } from "../run/run-types";
import type { StepProgress, SuspendedState } from "../run/suspended-state";
import { inSpan, runTraceContext } from "../tracing";
import { canonicalJson, computeTurnDigest, digestsEqual } from "../turn-digest";
import {
  type ClaimedRun,
  claimWaitingRun,
  decodeWaitingState,
  holdingClaim,
  readPendingTurn,
  requireRun,
  resumeClaimedRun,
} from "./claim-waiting-run";
import type { CoordinatorDependencies } from "./coordinator-dependencies";
import { countApproval, isCountedOnly, refuseQuorumMisuse } from "./count-approval";
import type { Decision, StartedDecision } from "./decision";
import {
  ApprovalExpiredError,
  type DecisionRefusedError,
  InvalidDecisionError,
  NotAuditableError,
  NotRuleApproverError,
  NotWaitingError,
  SelfApprovalError,
  StaleApprovalTurnError,
} from "./decision-errors";
import { isPastDeadline } from "./expire-wait";
import { explainCancelledFirst } from "./explain-cancelled-first";
import { type DecisionWritePlan, planDecisionWrites } from "./plan-decision-writes";

/**
 * The one place a decision is checked and applied
 * (docs/decisions.md#what-happens-to-a-decision-in-order), in this order: pre-claim decode (unreadable
 * → `unreadable_state`, nothing claimed); gate 1 against the turn read before the claim (a digest that
 * cannot match → `stale_turn`, nothing claimed; a digest whose wait expired → `not_waiting` saying
 * so); the variant's own checks (an edit must pass the tool's schema; edits, whole-turn approvals and
 * grants go with approvals only); atomic claim (lost → `not_waiting`); post-claim decode of the row
 * won (unreadable → the run is settled FAILED, its state kept); gate 1, the `turnDigest` against the
 * claimed pending turn in constant time (`stale_turn`, denials too), and the wait's deadline; the
 * audit record (a row per gate decided), in the write that also announces the decision and starts an
 * approved barrier; gate 2, an unaudited approval of a write-declaring turn (`not_auditable`). A
 * refusal releases the run to WAITING_FOR_APPROVAL with its state as it was (a failed release settles
 * it FAILED).
 *
 * When the run is still exactly the row that was read and checked, the
 * claim and the audit record are one write (the store refuses it if the row
 * changed in between, so every post-claim check would find what the
 * pre-claim checks found); otherwise, or if the audit refuses that write,
 * the decision takes the steps above one by one. The row checked may be one this process has just
 * read (`dependencies.waitingRuns`); a check it fails, or a fenced write it loses, starts the
 * decision again on a fresh read. It resolves once the decision
 * has taken effect; the run goes on in `settled` until it next waits or
 * ends. Throws a `DecisionRefusedError` subclass or `UnreadableStateError`.
 */
export function startDecision(
  runId: string,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): Promise<StartedDecision> {
  // In the run's own trace; its outcome or refusal code only, never the arguments or the reason.
  return inSpan(
    "decision",
    {
      "tool_playground.run.id": runId,
      "tool_playground.decision.approve": decision.approve,
      "tool_playground.decision.scope": decision.scope ?? "gate",
      "tool_playground.decision.edited":
        decision.editedArguments !== undefined && decision.editedArguments !== null,
    },
    async (span) => {
      const started = await decide(
        runId,
        decision,
        dependencies,
        dependencies.waitingRuns?.take(runId) ?? null,
      ).catch(async (error: unknown) => {
        throw await explainCancelledFirst(error, runId, dependencies);
      });
      span.setAttribute("tool_playground.decision.outcome", started.outcome);
      return started;
    },
    runTraceContext(runId),
  );
}

/**
 * `remembered`: the run's row as this process just read it (lib/runtime/coordinator/waiting-run-memory.ts),
 * checked instead of a fresh read when every check passes on it; a check it fails, or a fenced write it
 * loses, sends the decision back here with a fresh read, so a remembered row never refuses anything.
 * Nor does it hold another decision here away: it may be stale, so it does not take the run's place
 * among the claims in flight.
 */
async function decide(
  runId: string,
  decision: Decision,
  dependencies: CoordinatorDependencies,
  remembered: RunRecord | null,
): Promise<StartedDecision> {
  const { store, claimsInFlight } = dependencies;
  if (claimsInFlight?.has(runId)) throw new NotWaitingError(runId, "being decided by another decision");
  let checked =
    (remembered && (await checkRememberedRun(remembered, decision, dependencies))) ??
    (await checkDecision(runId, decision, dependencies));
  for (let attempt = 1; isCountedOnly(checked.state, decision, checked.edit); attempt += 1) {
    // An approval toward a quorum it does not meet: counted in one fenced write, nothing claimed.
    const { waiting, state, turnDigest, edit } = checked;
    if (await countApproval(waiting, state, turnDigest, decision, edit, dependencies)) {
      return { outcome: "counted", settled: Promise.resolve("WAITING_FOR_APPROVAL") };
    }
    // Nothing was written. Read again: the checks say what changed (taken, a new turn, expired).
    // Unchanged, another write held the row at that moment, or the audit could not store the row.
    const again = await checkDecision(runId, decision, dependencies);
    const isUnchanged = again.waiting.version === waiting.version;
    if (attempt >= MAX_COUNT_ATTEMPTS) {
      throw isUnchanged
        ? new NotAuditableError(runId, again.state.pending)
        : new NotWaitingError(runId, "being approved by others at this moment");
    }
    if (isUnchanged) await new Promise((resolve) => setTimeout(resolve, attempt * COUNT_RETRY_MS));
    checked = again;
  }
  const { waiting, state, turnDigest, edit } = checked;
  if (claimsInFlight?.has(runId)) throw new NotWaitingError(runId, "being decided by another decision");
  const isRemembered = waiting === remembered;
  if (!isRemembered) claimsInFlight?.add(runId);
  let taken: { claim: ClaimedRun; applied: Awaited<ReturnType<typeof applyDecision>> } | null;
  try {
    const write = planDecisionWrites(runId, decision, edit, state, turnDigest);
    const claimedAndRecorded = await claimAndRecord(waiting, state, write, dependencies);
    if (claimedAndRecorded) {
      const applied = await holdingClaim(store, runId, () =>
        afterRecording(decision, edit, claimedAndRecorded, write, true, dependencies),
      );
      taken = { claim: claimedAndRecorded, applied };
    } else if (isRemembered) {
      taken = null; // the run changed since that read: nothing was written; read it now
    } else {
      const claim = await claimWaitingRun(waiting, "decision", dependencies, { isDecoded: true });
      const applied = await holdingClaim(store, runId, () =>
        applyDecision(decision, edit, claim, dependencies),
      );
      taken = { claim, applied };
    }
  } finally {
    if (!isRemembered) claimsInFlight?.delete(runId);
  }
  if (!taken) return decide(runId, decision, dependencies, null);
  const { claim, applied } = taken;
  const { environment, outcome, reason, started, progress } = applied;
  // After the approval took effect: an approval that was refused gives no grant.
  const grant =
    decision.approve && decision.grant
      ? await storeGrant(claim, decision, checked.grantedCall, dependencies)
      : undefined;
  const settled = driveRun(
    environment,
    resumeClaimedRun(
      { ...claim, state: { ...claim.state, ...progress } },
      decision.approve ? { kind: "approve", started } : { kind: "deny", reason, actor: decision.actor },
    ),
  );
  return { outcome, settled, ...(grant === undefined ? {} : { grant }) };
}

/**
 * Stores the grant an approval asked for, bound to the barrier's tool and, for a tool defined
 * elsewhere, to the definition that was approved. The approval has taken effect: a grant that
 * cannot be stored is logged and answered as null, and the run goes on.
 */
async function storeGrant(
  claim: ClaimedRun,
  decision: Decision,
  call: { name: string; toolFingerprint: string | null } | null,
  dependencies: CoordinatorDependencies,
): Promise<ToolGrant | null> {
  const { grants, grantSubjectOf } = dependencies;
  if (!grants || !grantSubjectOf || !call || !decision.grant) return null;
  try {
    return await grants.create(
      newToolGrant(decision.grant, {
        toolName: call.name,
        toolFingerprint: call.toolFingerprint,
        subject: grantSubjectOf(claim.run),
        creator: { name: decision.actor, id: decision.actorId ?? null },
        now: dependencies.now(),
      }),
    );
  } catch (error) {
    dependencies.log?.("an approval's grant could not be stored", {
      runId: claim.run.id,
      error: String(error),
    });
    return null;
  }
}

/** Approvals counted toward a quorum at the same moment as this one make it read again, this many times at most. */
const MAX_COUNT_ATTEMPTS = 8;
/** The pause before counting again when the run was held by another write at that moment (times the attempt). */
const COUNT_RETRY_MS = 5;

/**
 * Every check a decision passes before anything is claimed (see
 * {@link startDecision}), without claiming: for the claim that follows, and
 * for a form that checks a decision while a person composes it. Throws the
 * refusal the decision would get; returns the run as read, its decoded state
 * and the digest computed of its pending turn, and the edited barrier call,
 * preflighted (or null).
 */
export async function checkDecision(
  runId: string,
  decision: Decision,
  dependencies: CoordinatorDependencies,
) {
  return checkDecisionOn(await requireRun(dependencies.store, runId), decision, dependencies);
}

/** The checks of {@link checkDecision} on a row read earlier, or null where it fails any of them. */
async function checkRememberedRun(
  remembered: RunRecord,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): Promise<Awaited<ReturnType<typeof checkDecisionOn>> | null> {
  try {
    return await checkDecisionOn(remembered, decision, dependencies, { explainsExpiry: false });
  } catch {
    return null; // the refusal, if there is one, is the fresh read's to give
  }
}

async function checkDecisionOn(
  waiting: RunRecord,
  decision: Decision,
  dependencies: CoordinatorDependencies,
  { explainsExpiry = true } = {},
) {
  const runId = waiting.id;
  let state: SuspendedState;
  let turnDigest: string;
  try {
    // Decoded once, before anything is claimed: refusals of a run that cannot be decided cost no write.
    state = decodeWaitingState(waiting);
    turnDigest = refuseUnmatchableDigest(waiting, state.pending, decision);
  } catch (error) {
    // A remembered row's refusal is not given (the fresh read's is): nothing to explain yet.
    throw explainsExpiry ? await explainExpiredTurn(error, runId, decision, dependencies) : error;
  }
  const { pending } = state;
  if (isPastDeadline(pending, dependencies.now()))
    throw new ApprovalExpiredError(runId, pending.expiresAt, null);
  refuseSelfApproval(waiting, decision, dependencies);
  refuseUnnamedDecider(waiting.id, state, decision);
  refuseQuorumMisuse(waiting.id, state, decision);
  const grantedCall = checkGrant(waiting, state, decision, dependencies);
  return {
    waiting,
    state,
    turnDigest,
    edit: await checkVariant(waiting, pending, decision, dependencies),
    grantedCall,
  };
}

/**
 * A decision on a turn that is no longer pending because its wait expired is
 * told so (409 `not_waiting`, saying it expired), not just that the turn is
 * stale: the audit has the expiry of that digest. Other errors pass through.
 */
async function explainExpiredTurn(
  error: unknown,
  runId: string,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): Promise<unknown> {
  if (!NotWaitingError.isInstance(error) && !StaleApprovalTurnError.isInstance(error)) return error;
  if (typeof decision.turnDigest !== "string") return error;
  const expiry = (await dependencies.store.listApprovals(runId)).find(
    (row) => row.kind === "expiry" && row.turnDigest === decision.turnDigest,
  );
  return expiry ? new ApprovalExpiredError(runId, expiry.decidedAt, error.pending) : error;
}

/**
 * Gate 1 before the claim: a digest that cannot match the turn the run waits
 * at is refused without claiming, so a flood of wrong digests can never hold
 * the run away from the right one. The check after the claim stays: the turn
 * may change between this read and the claim.
 */
function refuseUnmatchableDigest(waiting: RunRecord, pending: PendingTurn, decision: Decision): string {
  const expected = computeTurnDigest(pending.calls);
  const received = typeof decision.turnDigest === "string" ? decision.turnDigest : null;
  if (!digestsEqual(received, expected)) {
    throw new StaleApprovalTurnError(waiting.id, { ...pending, turnDigest: expected }, received);
  }
  return expected;
}

/**
 * Separation of duties: when the host requires it of the run (for every run,
 * or by the run's own policy), the person who started a run may not approve
 * its gated calls. They may still deny or cancel. Checked before the claim:
 * nothing is held for a refused approval.
 */
function refuseSelfApproval(
  waiting: RunRecord,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): void {
  if (!decision.approve || !decision.actorId || decision.actorId !== waiting.startedById) return;
  if (dependencies.requiresDistinctApprover(waiting)) {
    throw new SelfApprovalError(waiting.id, readPendingTurn(waiting));
  }
}

/**
 * Who may decide (docs/policies.md#who-may-decide): when a policy rule gated a call this decision
 * decides (the barrier; every gate for a whole-turn approval) and names who may decide it, a
 * decider it does not name is refused, approving or denying. Checked before the claim: nothing is
 * held for a refused decider. A decision the host authenticated no one for is not checked.
 */
function refuseUnnamedDecider(runId: string, state: SuspendedState, decision: Decision): void {
  const { decider } = decision;
  if (!decider) return;
  const barrier = barrierOf(state);
  const decided =
    decision.approve && decision.scope === "turn" ? gatesOf(state) : barrier ? [barrier.batchIndex] : [];
  for (const batchIndex of decided) {
    const policy = state.calls[batchIndex]?.policy;
    if (policy?.effect !== "require" || mayDecideCall(policy, decider)) continue;
    throw new NotRuleApproverError(
      runId,
      { name: policy.rule, version: policy.version, approvers: describeApprovers(policy.approvers) },
      state.pending,
    );
  }
}

/**
 * A grant asked for with an approval (docs/policies.md#grants), checked before anything is claimed:
 * only with an approval, not beside `alwaysAllow`, only where this host keeps grants, its condition
 * checked like a policy rule's, and only for a gate its tool's declaration made: a call a policy
 * rule decided stays the rule's (a grant never waives a rule, nor a quorum). Returns the tool it
 * grants, with the definition it is bound to (null when no grant was asked for).
 */
function checkGrant(
  waiting: RunRecord,
  state: SuspendedState,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): { name: string; toolFingerprint: string | null } | null {
  if (decision.grant === undefined || decision.grant === null) return null;
  const refuse = (field: string, message: string) =>
    new InvalidDecisionError(waiting.id, field, message, state.pending);
  if (!decision.approve) throw refuse("grant", "goes with an approval only; a denial changes nothing");
  if (decision.alwaysAllow === true) throw refuse("grant", "replaces alwaysAllow; give one of them");
  if (!dependencies.grants || !dependencies.grantSubjectOf)
    throw refuse("grant", "this host keeps no grants");
  const parsed = grantRequestSchema.safeParse(decision.grant);
  if (!parsed.success)
    throw refuse(
      "grant",
      parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
    );
  const { condition, scope } = parsed.data;
  if (condition) {
    const compiled = compileGrantCondition(condition);
    if (!compiled.ok) throw refuse("grant.condition", compiled.problem);
  }
  if (scope === "user" && !waiting.startedById) {
    throw refuse("grant.scope", "user: this run was started by nobody, so there is no user to grant it for");
  }
  const barrier = barrierOf(state);
  const call = barrier ? state.calls[barrier.batchIndex] : undefined;
  if (!barrier || !call) return null;
  if (call.policy) {
    throw refuse(
      "grant",
      `cannot be given for ${call.name}: policy rule ${JSON.stringify(call.policy.rule)} decided this call, and a grant only waives a tool's own gate`,
    );
  }
  return { name: call.name, toolFingerprint: barrier.toolFingerprint ?? null };
}

/**
 * What a decision's variant asks for, checked before anything is claimed: an
 * edit or a whole-turn approval goes with an approval only, and edited
 * arguments must pass the barrier tool's schema and preflight, exactly as the
 * model's would. Returns the edited barrier call, preflighted, or null.
 */
async function checkVariant(
  waiting: RunRecord,
  pending: PendingTurn,
  decision: Decision,
  dependencies: CoordinatorDependencies,
): Promise<PreflightedCall | null> {
  const edited = decision.editedArguments ?? null;
  if (!decision.approve && (edited !== null || decision.scope === "turn" || decision.alwaysAllow === true)) {
    const field = edited !== null ? "editedArguments" : decision.scope === "turn" ? "scope" : "alwaysAllow";
    throw new InvalidDecisionError(
      waiting.id,
      field,
      "goes with an approval only; a denial changes nothing",
      pending,
    );
  }
  const [barrier] = pending.calls;
  if (decision.alwaysAllow === true && barrier?.toolFingerprint) {
    throw new InvalidDecisionError(
      waiting.id,
      "alwaysAllow",
      `cannot be given for ${barrier.name}: its MCP server can change what the tool does at any time, so each of its calls is approved against the definition shown`,
      pending,
    );
  }
  if (edited === null || !barrier) return null;
  let text: string;
  try {
    text = canonicalJson(edited);
  } catch (error) {
    throw new InvalidDecisionError(waiting.id, "editedArguments", String(error), pending);
  }
  const registry = await dependencies.registryOf(waiting);
  const messages = registry.validateArguments(barrier.name, edited);
  if (messages.length > 0) {
    throw new InvalidDecisionError(waiting.id, "editedArguments", messages, pending);
  }
  const preflighted = preflightCall({ ...barrier, arguments: text }, registry);
  if (preflighted.problem)
    throw new InvalidDecisionError(waiting.id, "editedArguments", preflighted.problem.message, pending);
  // Bound to the definition that was shown, not to whatever the tool's server lists now.
  const { toolFingerprint: _listedNow, ...call } = preflighted;
  return barrier.toolFingerprint ? { ...call, toolFingerprint: barrier.toolFingerprint } : call;
}

/**
 * The claim and the decision's record in one write, while the run is still
 * exactly as it was read and checked (so gate 1 and the decode hold for the
 * row claimed, as the checks after a separate claim would find). Null when
 * the store could not (the run changed, another claim holds it, the audit
 * refused, the wait is now due): nothing was written, and the decision goes
 * the long way, whose checks say why.
 */
async function claimAndRecord(
  waiting: RunRecord,
  state: SuspendedState,
  write: DecisionWritePlan,
  dependencies: CoordinatorDependencies,
): Promise<ClaimedRun | null> {
  // The claim announces the stored digest; the one write is taken only when it is the computed one.
  if (state.pending.turnDigest !== write.expected) return null;
  if (isPastDeadline(state.pending, dependencies.now())) return null;
  const claimToken = dependencies.createClaimToken();
  const recorded = await dependencies.store.claimAndRecordDecision(
    waiting.id,
    claimToken,
    dependencies.leaseMs,
    waiting.version,
    {
      records: write.records,
      event: write.announcement(true),
      startBarrier: write.startBarrier,
    },
  );
  if (!recorded) return null;
  const run: RunRecord = { ...waiting, status: "RUNNING", leaseExpired: false };
  return { run, claimToken, state };
}

/**
 * Gates 1 and 2, the audit and the announcement of a decision on a claimed run
 * (docs/decisions.md#what-happens-to-a-decision-in-order, steps 5–7).
 */
async function applyDecision(
  decision: Decision,
  edit: PreflightedCall | null,
  claim: ClaimedRun,
  dependencies: CoordinatorDependencies,
) {
  const { run: claimed, claimToken, state } = claim;
  const runId = claimed.id;
  const write = planDecisionWrites(runId, decision, edit, state, computeTurnDigest(state.pending.calls));
  const { expected } = write;
  // Surfaces validate the body, but a digest that is not a string must still be a refusal, not a crash.
  const received = typeof decision.turnDigest === "string" ? decision.turnDigest : null;
  if (!digestsEqual(received, expected)) {
    await release(
      dependencies,
      claim,
      new StaleApprovalTurnError(runId, { ...state.pending, turnDigest: expected }, received),
    );
  }
  if (isPastDeadline(state.pending, dependencies.now())) {
    // Due, but not yet expired by the sweep: nobody may decide it now; it expires as it stands.
    await release(dependencies, claim, new ApprovalExpiredError(runId, state.pending.expiresAt, null));
  }
  // One audit row per gate decided. It, the announcement of the decision and an approved
  // barrier's start go in one write.
  const audited = await dependencies.store.recordApproval(write.records, {
    claimToken,
    event: write.announcement(true),
    startBarrier: write.startBarrier,
  });
  return afterRecording(decision, edit, claim, write, audited, dependencies);
}

/** Gate 2 for a decision the audit could not store, then the run's grants and step as the decision leaves them. */
async function afterRecording(
  decision: Decision,
  edit: PreflightedCall | null,
  claim: ClaimedRun,
  write: DecisionWritePlan,
  audited: boolean,
  dependencies: CoordinatorDependencies,
) {
  const { run: claimed, claimToken, state } = claim;
  const runId = claimed.id;
  const environment = await dependencies.createEnvironment(claimed, claimToken);
  if (!audited) {
    if (decision.approve && declaresWrite(state.pending.calls, environment.registry)) {
      await release(dependencies, claim, new NotAuditableError(runId, state.pending));
    }
    dependencies.log?.("a decision could not be audited; it proceeds because it executes no write", {
      runId,
      approve: decision.approve,
    });
    await dependencies.store.appendEvent(runId, claimToken, write.announcement(false));
  }
  const { allowTool } = write.announcement(audited).payload;
  if (allowTool !== null) {
    // Later steps of this run plan with the grant (an unaudited one grants nothing).
    environment.allowances.current = {
      ...environment.allowances.current,
      [allowTool]: { decisionId: write.decisionId, actor: decision.actor, actorId: decision.actorId ?? null },
    };
  }
  const progress = decision.approve ? applyApproval(state, edit, write.gates.slice(1), write.decisionId) : {};
  return {
    environment,
    outcome: write.outcome,
    reason: write.reason,
    started: audited && decision.approve,
    progress,
  };
}

/** The step as an approval leaves it: the barrier with its edited arguments, the later gates it approved. */
function applyApproval(
  state: StepProgress,
  edit: PreflightedCall | null,
  laterGates: readonly number[],
  decisionId: string,
): Partial<StepProgress> {
  const original = edit ? state.calls[edit.batchIndex] : undefined;
  return {
    calls: edit
      ? state.calls.map((call) => (call.batchIndex === edit.batchIndex ? edit : call))
      : state.calls,
    edits: original && edit ? { ...state.edits, [edit.batchIndex]: original.arguments } : state.edits,
    approvedGates: {
      ...state.approvedGates,
      ...Object.fromEntries(laterGates.map((batchIndex) => [batchIndex, decisionId])),
    },
  };
}

/** Gives a refused run back to the waiting state, then throws the refusal. */
async function release(
  dependencies: CoordinatorDependencies,
  { run: claimed, claimToken, state }: ClaimedRun,
  refusal: DecisionRefusedError,
): Promise<never> {
  const released = await dependencies.store.releaseRun(claimed.id, claimToken, claimed.state, {
    type: "run_released",
    payload: { stepIndex: state.stepIndex, ...state.pending, refusal: refusal.code },
  });
  if (!released) {
    // Never leave a run RUNNING with no worker: fail it, loudly.
    await dependencies.store.forceFail(claimed.id, {
      code: "release_failed",
      message: `A refused decision (${refusal.code}) could not hand the run back to the waiting state.`,
    });
    throw new NotWaitingError(claimed.id, "FAILED");
  }
  throw refusal;
}
