// How fast this machine's CPU is, measured in the same run (docs/performance.md#the-cpu-anchor): a
// fixed piece of the work a decision does on the main thread, with no I/O and nothing that waits.
// The figures that wait for a core (every p99 over HTTP) move with it from one machine, or one day
// of a shared machine, to the next; the table's database anchors do not show that.
import { computeTurnDigest } from "@/lib/runtime";

const CALLS = Array.from({ length: 8 }, (_, index) => ({
  id: `call_0_${index}`,
  name: "deploy",
  arguments: JSON.stringify({ service: `api-${index}`, region: "eu-west-1", replicas: index + 1 }),
  batchIndex: index,
}));

const EVENTS = ["run_claimed", "approval_decided", "run_resumed", "call_started"].map((type, n) => ({
  n,
  type,
  version: 1,
  payload: { stepIndex: 0, batchIndex: 0, actor: "bench approver", gates: [0], outcome: "executed" },
}));

/** One unit: the turn's digest (canonical JSON, SHA-256) and a decision's events as JSON text and back. */
function unit(): number {
  const digest = computeTurnDigest(CALLS);
  const events = JSON.parse(JSON.stringify(EVENTS)) as unknown[];
  return digest.length + events.length;
}

/** Milliseconds per `unitsPerSample` units, `samples` times, after a warm-up that lets the JIT settle. */
export function anchorCpu(samples = 30, unitsPerSample = 100): number[] {
  let checksum = 0;
  for (let index = 0; index < 5 * unitsPerSample; index += 1) checksum += unit();
  const timed: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const started = performance.now();
    for (let index = 0; index < unitsPerSample; index += 1) checksum += unit();
    timed.push(performance.now() - started);
  }
  if (checksum === 0) throw new Error("the CPU anchor did no work"); // keeps the work from being dropped
  return timed;
}
