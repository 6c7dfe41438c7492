import "server-only";
import { Worker } from "node:worker_threads";
import {
  checkPatternNow,
  MAX_PATTERN_LENGTH,
  PATTERN_CHECK_BUDGET_MS,
  type PatternCheckOutcome,
  type SchemaPattern,
} from "@/lib/runtime";
import { logWarning } from "@/lib/server/ops/logger";
import { processPart } from "@/lib/server/process-parts";

/**
 * Checks regular expressions for catastrophic backtracking on a worker
 * thread: proving a bad pattern unsafe takes redos-detector the whole time it
 * is given, and on the server's own thread every request (health checks
 * included) would wait that long. One worker per process, one check at a
 * time. Each pattern gets the full per-pattern time; one call's patterns
 * share a few times that, and checks waiting beyond a bound are not queued.
 * Neither the worker nor this module keeps verdicts: callers record them
 * (`recordPatternCheck`) in the runtime their own code compiles with.
 */
export interface PatternCheckWorker {
  /** Each pattern with what the check said of it, in order. */
  check(patterns: readonly SchemaPattern[]): Promise<Array<[SchemaPattern, PatternCheckOutcome]>>;
  /** How many patterns the worker has checked (tests). */
  checked(): number;
  close(): Promise<void>;
}

/** Worker time one call's patterns may take together. */
export const CALL_CHECK_BUDGET_MS = 4 * PATTERN_CHECK_BUDGET_MS;
/** Checks waiting for the worker beyond which a call's patterns are refused for now. */
export const MAX_WAITING_CHECKS = 64;
/** A worker that has not answered this long after its budget is stuck: it is replaced. */
const STUCK_AFTER_MS = 2_000;

// Plain CommonJS, evaluated by the worker: redos-detector is resolved from the app's own
// node_modules at run time, never bundled into it.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { isSafePattern } = require("redos-detector");
parentPort.on("message", ({ id, pattern, unicode, budgetMs }) => {
  const started = performance.now();
  let outcome;
  try {
    const result = isSafePattern(pattern, { timeout: budgetMs, unicode });
    outcome = { safe: result.safe, error: result.error ?? null, budgetMs };
  } catch (error) {
    outcome = { invalid: error instanceof Error ? error.message : String(error) };
  }
  parentPort.postMessage({ id, outcome, elapsedMs: performance.now() - started });
});
`;

interface Answer {
  outcome: PatternCheckOutcome;
  elapsedMs: number;
}

export function createPatternCheckWorker(): PatternCheckWorker {
  let worker: Worker | null = null;
  let broken = false;
  let nextId = 0;
  let checked = 0;
  let waiting = 0;
  // Each check waits on the worker it was sent to: a replaced worker's late exit answers only its own.
  const answers = new Map<number, { owner: Worker; answer: (answer: Answer | Error) => void }>();
  let queue: Promise<unknown> = Promise.resolve();

  function startWorker(): Worker {
    const started = new Worker(WORKER_SOURCE, { eval: true });
    started.unref();
    started.on("message", ({ id, outcome, elapsedMs }: Answer & { id: number }) => {
      answers.get(id)?.answer({ outcome, elapsedMs });
      answers.delete(id);
    });
    const fail = (error: Error) => {
      if (worker === started) worker = null;
      for (const [id, { owner, answer }] of answers) {
        if (owner !== started) continue;
        answers.delete(id);
        answer(error);
      }
    };
    started.on("error", (error) => {
      // It could not even load its checker: check here instead, as before there was a worker.
      if (checked === 0) {
        broken = true;
        logWarning("the pattern check worker cannot start; patterns are checked on the server's thread", {
          error: String(error),
        });
      }
      fail(error);
    });
    started.on("exit", () => fail(new Error("the pattern check worker stopped")));
    return started;
  }

  function checkOnWorker(pattern: SchemaPattern): Promise<Answer> {
    if (broken)
      return Promise.resolve({ outcome: checkPatternNow(pattern, PATTERN_CHECK_BUDGET_MS), elapsedMs: 0 });
    worker ??= startWorker();
    const current = worker;
    const id = nextId++;
    return new Promise<Answer>((resolve) => {
      const stuck = setTimeout(() => {
        answers.delete(id);
        if (worker === current) worker = null;
        void current.terminate();
        resolve({
          outcome: { unchecked: "could not be checked in time; simplify it" },
          elapsedMs: PATTERN_CHECK_BUDGET_MS,
        });
      }, PATTERN_CHECK_BUDGET_MS + STUCK_AFTER_MS);
      stuck.unref();
      answers.set(id, {
        owner: current,
        answer: (answer) => {
          clearTimeout(stuck);
          if (!(answer instanceof Error)) resolve(answer);
          else if (broken)
            resolve({ outcome: checkPatternNow(pattern, PATTERN_CHECK_BUDGET_MS), elapsedMs: 0 });
          else
            resolve({
              outcome: { unchecked: "could not be checked (the checker stopped); try again" },
              elapsedMs: 0,
            });
        },
      });
      // Held only while it checks: an idle worker never keeps a process (the CLI) alive.
      current.ref();
      current.postMessage({
        id,
        pattern: pattern.pattern,
        unicode: pattern.flags.includes("u"),
        budgetMs: PATTERN_CHECK_BUDGET_MS,
      });
    }).finally(() => {
      checked += 1;
      current.unref();
    });
  }

  /** One check at a time, in the order asked: each gets the worker to itself for its budget. */
  function enqueue(pattern: SchemaPattern): Promise<Answer> {
    waiting += 1;
    const turn = queue.then(() => checkOnWorker(pattern));
    queue = turn.catch(() => {});
    return turn.finally(() => {
      waiting -= 1;
    });
  }

  return {
    async check(patterns) {
      const results: Array<[SchemaPattern, PatternCheckOutcome]> = [];
      let spentMs = 0;
      for (const pattern of patterns) {
        if (pattern.pattern.length > MAX_PATTERN_LENGTH) {
          results.push([pattern, checkPatternNow(pattern, 0)]);
        } else if (spentMs >= CALL_CHECK_BUDGET_MS) {
          results.push([
            pattern,
            { unchecked: "could not be checked in time (the tool set has too many patterns)" },
          ]);
        } else if (waiting >= MAX_WAITING_CHECKS) {
          results.push([
            pattern,
            { unchecked: "could not be checked now (the server is checking many patterns); try again" },
          ]);
        } else {
          const { outcome, elapsedMs } = await enqueue(pattern);
          spentMs += elapsedMs;
          results.push([pattern, outcome]);
        }
      }
      return results;
    },
    checked: () => checked,
    async close() {
      const closing = worker;
      worker = null;
      await closing?.terminate();
    },
  };
}

/** This process's one pattern check worker, shared by every route and action bundle. */
export function getPatternCheckWorker(): PatternCheckWorker {
  return processPart("pattern-check-worker", () => createPatternCheckWorker());
}
