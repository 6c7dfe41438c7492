/**
 * The agent protocol's rules (docs/agent-api.md), as one suite every backing
 * runs: the in-memory store and mailbox, PGlite, the Postgres server. Import
 * it from a test file and call it inside the file's scope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunEndedError } from "../coordinator/decision-errors";
import type { RunHost } from "../host/run-host";
import type { RunStore } from "../run/run-store";
import type { AgentIdentity, AgentNext } from "./agent-answer";
import type { AgentProtocolError } from "./agent-errors";
import type { AgentMailbox } from "./agent-mailbox";
import type { AgentProtocol } from "./agent-protocol";
import { createAgentProtocol } from "./agent-protocol";
import type { OpenAgentRunInput } from "./agent-schemas";

export interface AgentBacking {
  /** Two hosts over the same store and mailbox, as two instances over one database. */
  hosts: [RunHost, RunHost];
  /** Another host over the same store and mailbox, its store seen through `wrap`: to order a race's steps. */
  hostOver(wrap: (store: RunStore) => RunStore): RunHost;
  mailbox: AgentMailbox;
  /** The hosts' clock is the wall clock plus `offset` (release leases are read by it); tests move it. */
  clock: { offset: number };
  /** Ends the run's claim lease now, as when its worker's server stops. */
  expireRunLease(runId: string): Promise<void>;
  close(): Promise<void>;
}

const AGENT: AgentIdentity = {
  tokenId: "token-a",
  tokenName: "ci-agent",
  ownerId: "user-1",
  ownerName: "Ana",
};
const OTHER: AgentIdentity = { tokenId: "token-b", tokenName: "other", ownerId: "user-2", ownerName: "Bo" };
const WAIT = { waitMs: 20_000 };

const TOOLS: OpenAgentRunInput["tools"] = [
  {
    name: "search",
    description: "Searches the web.",
    resourceClass: "pure_read",
    effect: "READ",
    approval: "never",
    parameters: { type: "object" },
  },
  {
    name: "send_email",
    description: "Sends an email.",
    resourceClass: "write",
    effect: "NON_IDEMPOTENT_WRITE",
    approval: "always",
    parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  },
];

function openInput(overrides: Partial<OpenAgentRunInput> = {}): OpenAgentRunInput {
  return {
    name: "agent contract",
    agent: { name: "contract-bot", version: "1.0.0", traceId: "trace-1" },
    tools: TOOLS,
    ...overrides,
  };
}

const read = (id: string, q = id) => ({ id, name: "search", arguments: JSON.stringify({ q }) });
const send = (id: string, to = "a@example.com") => ({ id, name: "send_email", arguments: `{"to": "${to}"}` });

/** Lets timers run: an in-memory store answers in microtasks, which alone would starve the worker's polls. */
const yieldToTimers = () => new Promise((resolve) => setTimeout(resolve, 5));

async function refusal(promise: Promise<unknown>): Promise<AgentProtocolError> {
  try {
    await promise;
  } catch (error) {
    return error as AgentProtocolError;
  }
  throw new Error("expected a refusal");
}

export function describeAgentProtocolContract(label: string, open: () => Promise<AgentBacking>) {
  describe(`agent protocol: ${label}`, () => {
    let backing: AgentBacking;
    let protocol: AgentProtocol;
    let other: AgentProtocol;
    beforeAll(async () => {
      backing = await open();
      const now = () => Date.now() + backing.clock.offset;
      protocol = createAgentProtocol({ host: backing.hosts[0], mailbox: backing.mailbox, pollMs: 10, now });
      // Another process (or instance) serving the same agent: nothing shared but what is stored.
      other = createAgentProtocol({ host: backing.hosts[1], mailbox: backing.mailbox, pollMs: 10, now });
    });
    afterAll(async () => backing.close());

    /** Waits until the run's answer is not `wait` (or is waiting for approval when `approval`). */
    async function until(runId: string, want: AgentNext["next"] | "approval"): Promise<AgentNext> {
      for (let attempt = 0; attempt < 400; attempt += 1) {
        const answer = await protocol.next(runId, AGENT, { waitMs: 50 });
        await yieldToTimers();
        if (want === "approval" ? answer.waitingFor === "approval" : answer.next === want) return answer;
      }
      throw new Error(`the run never reached ${want}`);
    }

    async function reportAll(runId: string, answer: AgentNext, result = (name: string) => ({ from: name })) {
      for (const release of answer.releases) {
        await protocol.report(runId, AGENT, {
          releaseToken: release.releaseToken,
          ok: true,
          result: result(release.callId),
        });
      }
    }

    async function approve(runId: string, editedArguments?: Record<string, unknown>) {
      const view = await backing.hosts[1].loadView(runId);
      const turnDigest = view?.pending?.turnDigest ?? null;
      await backing.hosts[1].startDecision(runId, {
        approve: true,
        actor: "Ana",
        turnDigest,
        ...(editedArguments ? { editedArguments } : {}),
      });
    }

    it("releases waves under the cap, each after the previous settled, then asks for the next turn", async () => {
      const { runId } = await protocol.openRun(openInput({ limits: { maxParallelToolCalls: 2 } }), AGENT);
      expect((await protocol.next(runId, AGENT, { waitMs: 0 })).next).toBe("submit_turn");
      const calls = ["r0", "r1", "r2", "r3", "r4"].map((id) => read(id));
      await protocol.submitTurn(runId, AGENT, { turn: 0, text: "looking", calls }, { waitMs: 0 });
      const seen: string[][] = [];
      for (;;) {
        const answer = await until(runId, "execute").catch(() => null);
        if (!answer) break;
        expect(answer.releases.length).toBeLessThanOrEqual(2);
        seen.push(answer.releases.map((release) => release.callId));
        await reportAll(runId, answer);
        if (seen.flat().length === 5) break;
      }
      expect(seen).toEqual([["r0", "r1"], ["r2", "r3"], ["r4"]]);
      const after = await until(runId, "submit_turn");
      expect(after.turn).toBe(1);
      expect(after.outcome?.calls.map((call) => [call.callId, call.status, call.executedBy])).toEqual(
        calls.map((call) => [call.id, "ok", "agent"]),
      );
    });

    it("releases nothing past a barrier before its decision, the edited arguments after approval, original payloads after it", async () => {
      const { runId } = await protocol.openRun(openInput({ limits: { maxParallelToolCalls: 3 } }), AGENT);
      const raw = '{ "q" :  "after",  "n": 1.0 }';
      await protocol.submitTurn(
        runId,
        AGENT,
        {
          turn: 0,
          text: null,
          calls: [read("before"), send("gate"), { id: "after", name: "search", arguments: raw }],
        },
        { waitMs: 0 },
      );
      const first = await until(runId, "execute");
      expect(first.releases.map((release) => release.callId)).toEqual(["before"]);
      await reportAll(runId, first);
      const waiting = await until(runId, "approval");
      expect(waiting.releases).toEqual([]);
      // A long poll after the answer acted on is answered at the next change, not before.
      const unchanged = await protocol.next(runId, AGENT, { waitMs: 30, after: waiting.version });
      expect(unchanged.version).toBe(waiting.version);
      const changed = await protocol.next(runId, AGENT, { waitMs: 20_000, after: first.version });
      expect(changed.version).not.toBe(first.version);
      expect(waiting.plan?.segments.map((segment) => segment.kind)).toEqual(["wave", "barrier", "wave"]);
      await approve(runId, { to: "b@example.com" });
      const gate = await until(runId, "execute");
      expect(gate.releases).toHaveLength(1);
      expect(gate.releases[0]).toMatchObject({ callId: "gate", edited: true });
      expect(JSON.parse(gate.releases[0]?.arguments ?? "")).toEqual({ to: "b@example.com" });
      await reportAll(runId, gate);
      const last = await until(runId, "execute");
      expect(last.releases[0]).toMatchObject({ callId: "after", arguments: raw, edited: false });
      await reportAll(runId, last);
      const outcome = (await until(runId, "submit_turn")).outcome;
      expect(outcome?.calls.map((call) => [call.callId, call.status, call.edited])).toEqual([
        ["before", "ok", false],
        ["gate", "ok", true],
        ["after", "ok", false],
      ]);
      expect(JSON.parse(outcome?.calls[1]?.arguments ?? "")).toEqual({ to: "b@example.com" });
      // The agent ends the run with its final text, a lone finish call the server executes.
      const finished = await protocol.submitTurn(
        runId,
        AGENT,
        { turn: 1, text: "done", calls: [{ id: "f", name: "finish", arguments: '{"summary":"sent"}' }] },
        WAIT,
      );
      expect(finished).toMatchObject({ next: "finished", status: "COMPLETED" });
      expect(finished.outcome?.calls[0]).toMatchObject({
        name: "finish",
        status: "ok",
        executedBy: "server",
      });
    });

    it("a decision that waits for the run to settle answers once the call is the agent's to run, not when it acts", async () => {
      const { runId } = await protocol.openRun(openInput({ limits: { maxParallelToolCalls: 3 } }), AGENT);
      await protocol.submitTurn(runId, AGENT, { turn: 0, text: null, calls: [send("gate")] }, { waitMs: 0 });
      await until(runId, "approval");
      const view = await backing.hosts[1].loadView(runId);
      // The agent does nothing until the decision has answered: waiting for it would never end.
      const decided = await backing.hosts[1].decide(runId, {
        approve: true,
        actor: "Ana",
        turnDigest: view?.pending?.turnDigest ?? null,
      });
      expect(decided.status).toBe("RUNNING");
      const released = await until(runId, "execute");
      expect(released.releases.map((release) => release.callId)).toEqual(["gate"]);
      await reportAll(runId, released);
      await until(runId, "submit_turn");
    });

    it("an error of the approved call, a denial, a cancel invalidate the calls after it", async () => {
      const turn = { turn: 0, text: null, calls: [send("gate"), read("later")] };
      const failed = (await protocol.openRun(openInput(), AGENT)).runId;
      await protocol.submitTurn(failed, AGENT, turn, { waitMs: 0 });
      await until(failed, "approval");
      await approve(failed);
      const gate = await until(failed, "execute");
      await protocol.report(failed, AGENT, {
        releaseToken: gate.releases[0]?.releaseToken ?? "",
        ok: false,
        error: { code: "smtp_down", message: "the mail server refused" },
      });
      const afterError = (await until(failed, "submit_turn")).outcome?.calls;
      expect(afterError?.map((call) => [call.status, call.error?.code])).toEqual([
        ["error", "smtp_down"],
        ["invalidated", "invalidated"],
      ]);

      const denied = (await protocol.openRun(openInput(), AGENT)).runId;
      await protocol.submitTurn(denied, AGENT, turn, { waitMs: 0 });
      const pending = await until(denied, "approval");
      expect(pending.releases).toEqual([]);
      const view = await backing.hosts[0].loadView(denied);
      await backing.hosts[0].startDecision(denied, {
        approve: false,
        actor: "Ana",
        reason: "not to that address",
        turnDigest: view?.pending?.turnDigest ?? null,
      });
      const afterDenial = (await until(denied, "submit_turn")).outcome?.calls;
      expect(afterDenial?.map((call) => call.status)).toEqual(["denied", "invalidated"]);
      expect(afterDenial?.[0]?.reply).toBe("not to that address");

      const cancelled = (await protocol.openRun(openInput(), AGENT)).runId;
      await protocol.submitTurn(
        cancelled,
        AGENT,
        { turn: 0, text: null, calls: [read("held"), read("too")] },
        { waitMs: 0 },
      );
      const held = await until(cancelled, "execute");
      // The host whose worker holds the run (the server also tells other instances' workers: NOTIFY).
      await backing.hosts[0].startCancelRun(cancelled, "run");
      const end = await until(cancelled, "finished");
      expect(end.status).toBe("CANCELLED");
      const late = await refusal(
        protocol.report(cancelled, AGENT, {
          releaseToken: held.releases[0]?.releaseToken ?? "",
          ok: true,
          result: 1,
        }),
      );
      expect(late.code).toBe("release_closed");
      expect(late.details).toMatchObject({ reason: "cancelled" });
    });

    it("an expired wait settles the gate expired and invalidates the calls after it", async () => {
      // The database reads deadlines by its own clock: this one waits out a real second.
      backing.clock.offset = 0;
      const { runId } = await protocol.openRun(openInput({ approvalTimeoutSeconds: 1 }), AGENT);
      await protocol.submitTurn(
        runId,
        AGENT,
        { turn: 0, text: null, calls: [send("gate"), read("later")] },
        { waitMs: 0 },
      );
      await until(runId, "approval");
      let answer = await protocol.next(runId, AGENT, { waitMs: 0 });
      for (let attempt = 0; attempt < 400 && answer.next !== "submit_turn"; attempt += 1) {
        await backing.hosts[1].sweepApprovalDeadlines();
        answer = await protocol.next(runId, AGENT, { waitMs: 50 });
      }
      const outcome = answer.outcome?.calls;
      expect(outcome?.map((call) => call.status)).toEqual(["expired", "invalidated"]);
    });

    it("reports are idempotent: the same answers the same, another is a conflict; foreign and unknown tokens are refused", async () => {
      const first = (await protocol.openRun(openInput(), AGENT)).runId;
      const second = (await protocol.openRun(openInput(), AGENT)).runId;
      await protocol.submitTurn(
        first,
        AGENT,
        { turn: 0, text: null, calls: [read("a"), read("b")] },
        { waitMs: 0 },
      );
      const released = await until(first, "execute");
      const token = released.releases[0]?.releaseToken ?? "";
      const report = { releaseToken: token, ok: true as const, result: { hits: 3 } };
      const accepted = await protocol.report(first, AGENT, report);
      expect(await protocol.report(first, AGENT, report)).toEqual(accepted);
      expect(await other.report(first, AGENT, { ...report, result: { hits: 3 } })).toEqual(accepted);
      expect((await refusal(protocol.report(first, AGENT, { ...report, result: { hits: 4 } }))).code).toBe(
        "report_conflict",
      );
      // A token of another run, or one never given: no such release of this run.
      expect((await refusal(protocol.report(second, AGENT, report))).code).toBe("not_found");
      expect(
        (await refusal(protocol.report(first, AGENT, { ...report, releaseToken: "rel_forged" }))).code,
      ).toBe("not_found");
    });

    it("a lapsed release: an idempotent call is released again, a non-idempotent one is interrupted, never twice", async () => {
      const { runId } = await protocol.openRun(openInput({ releaseLeaseSeconds: 30 }), AGENT);
      await protocol.submitTurn(runId, AGENT, { turn: 0, text: null, calls: [read("r")] }, { waitMs: 0 });
      const first = await until(runId, "execute");
      backing.clock.offset += 31_000;
      let again = first;
      for (let attempt = 0; attempt < 400 && again.releases[0]?.attempt !== 2; attempt += 1) {
        await yieldToTimers();
        again = await protocol.next(runId, AGENT, { waitMs: 50 });
      }
      expect(again.releases[0]).toMatchObject({ callId: "r", attempt: 2 });
      const stale = await refusal(
        protocol.report(runId, AGENT, {
          releaseToken: first.releases[0]?.releaseToken ?? "",
          ok: true,
          result: 1,
        }),
      );
      expect(stale.code).toBe("release_closed");
      expect(stale.details).toMatchObject({ reason: "lapsed" });
      await reportAll(runId, again);
      expect((await until(runId, "submit_turn")).outcome?.calls[0]?.status).toBe("ok");

      await protocol.submitTurn(runId, AGENT, { turn: 1, text: null, calls: [send("w")] }, { waitMs: 0 });
      await until(runId, "approval");
      await approve(runId);
      const write = await until(runId, "execute");
      backing.clock.offset += 31_000;
      const after = await until(runId, "submit_turn");
      expect(after.outcome?.calls[0]).toMatchObject({ callId: "w", status: "interrupted" });
      const releases = await backing.mailbox.listReleases(runId, { stepIndex: 1, batchIndex: 0 });
      expect(releases.map((release) => release.state)).toEqual(["lapsed"]);
      expect(
        (
          await refusal(
            protocol.report(runId, AGENT, {
              releaseToken: write.releases[0]?.releaseToken ?? "",
              ok: true,
              result: 1,
            }),
          )
        ).code,
      ).toBe("release_closed");
    });

    it("an agent that restarts mid-wait, or asks another instance, finds its run exactly where it was", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      await other.submitTurn(
        runId,
        AGENT,
        { turn: 0, text: null, calls: [read("x"), read("y")] },
        { waitMs: 0 },
      );
      const before = await until(runId, "execute");
      const restarted = createAgentProtocol({ host: backing.hosts[1], mailbox: backing.mailbox, pollMs: 10 });
      const after = await restarted.next(runId, AGENT, { waitMs: 0 });
      expect(after.releases).toEqual(before.releases);
      for (const release of after.releases) {
        await restarted.report(runId, AGENT, { releaseToken: release.releaseToken, ok: true, result: null });
      }
      expect((await until(runId, "submit_turn")).turn).toBe(1);
    });

    it("a server that stops mid-wait is replaced: the new worker waits on the open release, nothing is released twice", async () => {
      const { runId } = await protocol.openRun(openInput({ releaseLeaseSeconds: 3_600 }), AGENT);
      await protocol.submitTurn(runId, AGENT, { turn: 0, text: null, calls: [read("held")] }, { waitMs: 0 });
      const held = await until(runId, "execute");
      // The first worker's lease runs out (its server stopped): another instance takes the run over.
      await backing.expireRunLease(runId);
      let recovered: Array<{ runId: string }> = [];
      for (let attempt = 0; attempt < 400 && recovered.length === 0; attempt += 1) {
        recovered = await backing.hosts[1].recoverExpiredRuns({ runId });
        if (recovered.length === 0) await yieldToTimers();
      }
      expect(recovered.map((entry) => entry.runId)).toEqual([runId]);
      const after = await protocol.next(runId, AGENT, { waitMs: 0 });
      expect(after.releases).toEqual(held.releases);
      await reportAll(runId, after);
      expect((await until(runId, "submit_turn")).outcome?.calls[0]).toMatchObject({ status: "ok" });
      expect((await backing.mailbox.listReleases(runId)).map((release) => release.attempt)).toEqual([1]);
    });

    it("a turn is bound to its number: resubmitted the same it answers the same, changed it conflicts, out of order it is refused", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      expect(
        (await refusal(protocol.submitTurn(runId, AGENT, { turn: 1, text: null, calls: [read("a")] }, WAIT)))
          .code,
      ).toBe("turn_out_of_order");
      const turn = { turn: 0, text: "t", calls: [read("a")] };
      await protocol.submitTurn(runId, AGENT, turn, { waitMs: 0 });
      await protocol.submitTurn(runId, AGENT, turn, { waitMs: 0 });
      expect((await refusal(protocol.submitTurn(runId, AGENT, { ...turn, text: "u" }, WAIT))).code).toBe(
        "turn_conflict",
      );
      expect(await backing.mailbox.countTurns(runId)).toBe(1);
    });

    it("the same turn sent several times at once answers each as the first; two different ones at once conflict", async () => {
      for (let round = 0; round < 3; round += 1) {
        const { runId } = await protocol.openRun(openInput(), AGENT);
        const turn = { turn: 0, text: "x", calls: [read("r1")] };
        // Half through each instance: a resend may reach another server than the first did.
        const answers = await Promise.allSettled(
          [protocol, other, protocol, other, protocol].map((each) =>
            each.submitTurn(runId, AGENT, turn, WAIT),
          ),
        );
        const refusals = answers.flatMap((answer) => (answer.status === "rejected" ? [answer.reason] : []));
        expect(refusals).toEqual([]);
        const releases = answers.map((answer) =>
          answer.status === "fulfilled" ? answer.value.releases.map((release) => release.releaseToken) : [],
        );
        expect(new Set(releases.map((tokens) => tokens.join()))).toEqual(new Set([releases[0]?.join()]));
        expect(releases[0]).toHaveLength(1);
        expect(await backing.mailbox.countTurns(runId)).toBe(1);
      }
      const { runId } = await protocol.openRun(openInput(), AGENT);
      const [first, second] = await Promise.allSettled([
        protocol.submitTurn(runId, AGENT, { turn: 0, text: "one", calls: [read("a")] }, WAIT),
        other.submitTurn(runId, AGENT, { turn: 0, text: "two", calls: [read("a")] }, WAIT),
      ]);
      const outcomes = [first, second].map((answer) =>
        answer.status === "fulfilled" ? answer.value.next : (answer.reason as AgentProtocolError).code,
      );
      expect(outcomes.sort()).toEqual(["execute", "turn_conflict"]);
    });

    it("a turn stored by another request after this one looked for it answers this one as the first", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      const turn = { turn: 0, text: "x", calls: [read("r1")] };
      // This request's first look for the turn finds none, and is answered only once the other request stored it.
      let lookedFor = () => {};
      const looked = new Promise<void>((resolve) => {
        lookedFor = resolve;
      });
      let letGo = () => {};
      const otherStored = new Promise<void>((resolve) => {
        letGo = resolve;
      });
      let isFirstLook = true;
      const late = createAgentProtocol({
        host: backing.hosts[1],
        pollMs: 10,
        mailbox: {
          ...backing.mailbox,
          readTurn: async (id, number) => {
            const found = await backing.mailbox.readTurn(id, number);
            if (isFirstLook) {
              isFirstLook = false;
              lookedFor();
              await otherStored;
            }
            return found;
          },
        },
      });
      const answering = late.submitTurn(runId, AGENT, turn, WAIT);
      await looked;
      const first = await protocol.submitTurn(runId, AGENT, turn, WAIT);
      letGo();
      const second = await answering;
      expect(second.releases).toEqual(first.releases);
      expect((await refusal(late.submitTurn(runId, AGENT, { ...turn, text: "changed" }, WAIT))).code).toBe(
        "turn_conflict",
      );
    });

    it("a run that has ended: its finish sent again answers the same, with other text conflicts; a heartbeat is refused", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      const finish = (text: string) => ({
        turn: 0,
        text,
        calls: [{ id: "finish_0", name: "finish", arguments: JSON.stringify({ summary: text }) }],
      });
      const finished = await protocol.submitTurn(runId, AGENT, finish("done"), WAIT);
      expect(finished).toMatchObject({ next: "finished", status: "COMPLETED" });
      expect(await other.submitTurn(runId, AGENT, finish("done"), WAIT)).toEqual(finished);
      expect((await refusal(other.submitTurn(runId, AGENT, finish("other"), WAIT))).code).toBe(
        "turn_conflict",
      );
      expect(await refusal(protocol.heartbeat(runId, AGENT))).toMatchObject({
        code: "not_waiting",
        message: `Run ${runId} has ended (COMPLETED).`,
      });
    });

    it("the agent's own cancel answers once the run has ended: a heartbeat after it is refused", async () => {
      // The run's worker ends it only once the heartbeat was sent, or the cancel waits for that end.
      let letEnd = () => {};
      const mayEnd = new Promise<void>((resolve) => {
        letEnd = resolve;
      });
      const holding = backing.hostOver((store) => ({
        ...store,
        finishRun: async (...args) => {
          await mayEnd;
          return store.finishRun(...args);
        },
      }));
      let isCancelling = false;
      const agentSide = createAgentProtocol({
        host: holding,
        pollMs: 10,
        mailbox: {
          ...backing.mailbox,
          waitForChange: async (...args) => {
            if (isCancelling) letEnd();
            return backing.mailbox.waitForChange(...args);
          },
        },
      });
      const { runId } = await agentSide.openRun(openInput(), AGENT);
      isCancelling = true;
      const cancelled = await agentSide.cancel(runId, AGENT, WAIT);
      const heartbeat = await agentSide.heartbeat(runId, AGENT).then(
        (renewed) => renewed,
        (error: AgentProtocolError) => error,
      );
      letEnd();
      expect(heartbeat).toMatchObject({
        code: "not_waiting",
        message: `Run ${runId} has ended (CANCELLED).`,
      });
      expect(cancelled).toEqual({ status: "CANCELLED" });
    });

    it("hostile turns are refused whole, nothing stored: duplicate ids, arguments that are not JSON, unknown tools, no calls", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      const cases = [
        [read("same"), read("same")],
        [{ id: "bad", name: "search", arguments: "{not json" }],
        [{ id: "who", name: "drop_database", arguments: "{}" }],
        [],
      ];
      for (const calls of cases) {
        const refused = await refusal(
          protocol.submitTurn(runId, AGENT, { turn: 0, text: null, calls }, WAIT),
        );
        expect(refused.code).toBe("turn_refused");
        expect(Array.isArray(refused.details.problems)).toBe(true);
      }
      expect(await backing.mailbox.countTurns(runId)).toBe(0);
      expect((await protocol.next(runId, AGENT, { waitMs: 0 })).next).toBe("submit_turn");
    });

    it("another agent's token can neither read nor drive the run", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      expect((await refusal(protocol.next(runId, OTHER, { waitMs: 0 }))).code).toBe("not_found");
      expect(
        (await refusal(protocol.submitTurn(runId, OTHER, { turn: 0, text: null, calls: [read("a")] }, WAIT)))
          .code,
      ).toBe("not_found");
      expect((await refusal(protocol.heartbeat(runId, OTHER))).code).toBe("not_found");
    });

    it("a report racing a cancel: exactly one wins, and the call's outcome says which", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      await protocol.submitTurn(runId, AGENT, { turn: 0, text: null, calls: [read("race")] }, { waitMs: 0 });
      const released = await until(runId, "execute");
      const [reported] = await Promise.allSettled([
        protocol.report(runId, AGENT, {
          releaseToken: released.releases[0]?.releaseToken ?? "",
          ok: true,
          result: "won",
        }),
        backing.hosts[0].startCancelRun(runId, "run"),
      ]);
      const end = await until(runId, "finished");
      expect(end.status).toBe("CANCELLED");
      const call = end.outcome?.calls[0];
      const [release] = await backing.mailbox.listReleases(runId);
      if (reported.status === "fulfilled" && release?.state === "reported") {
        expect(call?.status).toBe("ok");
      } else {
        expect(release?.state).toBe("cancelled");
        expect(call?.status).toBe("error");
      }
    });

    it("a cancel that finds the run taken by an approval after reading it waiting cancels it running", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      await protocol.submitTurn(runId, AGENT, { turn: 0, text: null, calls: [send("gate")] }, { waitMs: 0 });
      await until(runId, "approval");
      const pending = (await backing.hosts[0].loadView(runId))?.pending;
      // Between the cancel's read of the waiting run and its claim, an approval on the same instance claims it.
      const racing: RunHost = backing.hostOver((store) => ({
        ...store,
        claimWaitingRun: async (id, claimToken, leaseMs, purpose) => {
          if (purpose === "cancel") {
            await racing.startDecision(id, {
              approve: true,
              actor: "Ana",
              turnDigest: pending?.turnDigest ?? null,
            });
          }
          return store.claimWaitingRun(id, claimToken, leaseMs, purpose);
        },
      }));
      await racing.startCancelRun(runId, "run");
      expect((await until(runId, "finished")).status).toBe("CANCELLED");
    });

    it("an approval that loses the run to a cancel is told it was cancelled, not that it is RUNNING", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      await protocol.submitTurn(runId, AGENT, { turn: 0, text: null, calls: [send("gate")] }, { waitMs: 0 });
      await until(runId, "approval");
      const pending = (await backing.hosts[0].loadView(runId))?.pending;
      // The cancel's worker ends the run only once the approver has been answered: the run is RUNNING then.
      let letEnd = () => {};
      const answered = new Promise<void>((resolve) => {
        letEnd = resolve;
      });
      const cancelling = backing.hostOver((store) => ({
        ...store,
        finishRun: async (...args) => {
          await answered;
          return store.finishRun(...args);
        },
      }));
      // Between the approval's read of the waiting run and its claim, a cancel claims it and is answered.
      let isCancelled = false;
      const cancelFirst = async () => {
        if (isCancelled) return;
        isCancelled = true;
        await cancelling.startCancelRun(runId, "run");
      };
      const approving = backing.hostOver((store) => ({
        ...store,
        claimAndRecordDecision: async (...args) => {
          await cancelFirst();
          return store.claimAndRecordDecision(...args);
        },
        claimWaitingRun: async (id, claimToken, leaseMs, purpose) => {
          if (purpose === "decision") await cancelFirst();
          return store.claimWaitingRun(id, claimToken, leaseMs, purpose);
        },
      }));
      const refused = await refusal(
        approving.startDecision(runId, {
          approve: true,
          actor: "Ana",
          turnDigest: pending?.turnDigest ?? null,
        }),
      );
      letEnd();
      expect(refused).toMatchObject({ code: "not_waiting", status: "RUNNING", scope: "run" });
      expect(refused.message).toBe(
        `Run ${runId} was cancelled before this decision could take effect; nothing was decided, and the run is ending.`,
      );
      expect((await until(runId, "finished")).status).toBe("CANCELLED");
      // Once the run has ended, a decision on the turn it waited on is told so, with its final status.
      const late = await refusal(
        backing.hosts[1].startDecision(runId, {
          approve: true,
          actor: "Ana",
          turnDigest: pending?.turnDigest ?? null,
        }),
      );
      expect(late).toMatchObject({ code: "not_waiting", status: "CANCELLED" });
      expect(late.message).toBe(
        `Run ${runId} was cancelled before this decision could take effect, and the run has ended (CANCELLED); nothing was decided.`,
      );
    });

    it("a cancel that finds the run waiting after reading it running claims it and cancels it", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      await protocol.submitTurn(
        runId,
        AGENT,
        { turn: 0, text: null, calls: [read("before"), send("gate")] },
        { waitMs: 0 },
      );
      const first = await until(runId, "execute");
      // Between the cancel's read of the running run and its request, the run reaches its barrier and waits.
      let isFirstRequest = true;
      const racing = backing.hostOver((store) => ({
        ...store,
        requestCancel: async (id, scope) => {
          if (isFirstRequest) {
            isFirstRequest = false;
            await reportAll(runId, first);
            await until(runId, "approval");
          }
          return store.requestCancel(id, scope);
        },
      }));
      await racing.startCancelRun(runId, "run");
      const end = await until(runId, "finished");
      expect(end.status).toBe("CANCELLED");
      expect(end.outcome?.calls.map((call) => [call.callId, call.status])).toEqual([
        ["before", "ok"],
        ["gate", "invalidated"],
      ]);
    });

    it("a cancel of a run that has ended says so, not that the run is not waiting for a decision", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      await backing.hosts[0].startCancelRun(runId, "run");
      await until(runId, "finished");
      const refused = await refusal(backing.hosts[1].startCancelRun(runId, "run"));
      expect(RunEndedError.isInstance(refused)).toBe(true);
      expect(refused).toMatchObject({
        code: "not_waiting",
        message: `Run ${runId} has already ended (CANCELLED); there is nothing to cancel.`,
      });
    });

    it("a release that closes wakes the worker waiting on it at once, and not the one waiting on another", async () => {
      const { runId } = await protocol.openRun(openInput(), AGENT);
      const releaseOf = (batchIndex: number) => ({
        runId,
        stepIndex: 9,
        batchIndex,
        attempt: 1,
        token: `rel_wake_${runId}_${batchIndex}`,
        callId: `w${batchIndex}`,
        name: "search",
        arguments: "{}",
        leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
      const [mine, another] = [releaseOf(0), releaseOf(1)];
      expect(await backing.mailbox.createRelease(mine)).toBe(true);
      expect(await backing.mailbox.createRelease(another)).toBe(true);
      const stopWaiting = new AbortController();
      let anotherWoken = false;
      const waitingOnAnother = backing.mailbox
        .waitForRelease(another.token, 60_000, stopWaiting.signal)
        .then(() => {
          anotherWoken = true;
        });
      const waitingOnMine = backing.mailbox.waitForRelease(mine.token, 60_000);
      const report = { ok: true as const, result: null };
      expect(
        await backing.mailbox.closeRelease(mine.token, { state: "reported", report, reportDigest: "d" }),
      ).toBe(true);
      // Within the minute-long wait: the close woke it.
      await waitingOnMine;
      await yieldToTimers();
      expect(anotherWoken).toBe(false);
      stopWaiting.abort();
      await waitingOnAnother;
    });
  });
}
