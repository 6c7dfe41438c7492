/**
 * The three shapes of work every figure is measured on: the same tool calls,
 * in the same batches, for our runtime and for the LangGraph peer. The tool
 * does no I/O of its own, so what is measured is orchestration and
 * persistence, not the tool.
 */
export interface Shape {
  name: string;
  /** Each step's number of parallel calls. */
  batches: number[];
  /** The cap on parallel calls (our planner splits larger batches into waves). */
  cap: number;
}

export const SHAPES: Shape[] = [
  { name: "1 step, 14 reads at cap 8", batches: [14], cap: 8 },
  { name: "50 steps × 1 read", batches: Array.from({ length: 50 }, () => 1), cap: 8 },
  { name: "20 steps × 8 reads", batches: Array.from({ length: 20 }, () => 8), cap: 8 },
];

export const toolCallsOf = (shape: Shape) => shape.batches.reduce((sum, size) => sum + size, 0);

/** The bench's one tool: a pure read that answers at once. */
export const LOOKUP_TOOL = {
  name: "lookup",
  description: "Look a key up",
  resourceClass: "pure_read" as const,
  effect: "READ" as const,
  approval: "never" as const,
  result: { found: true },
};

/** A scenario running `shape` with our scripted model, ending with `finish`. */
export function scenarioOf(shape: Shape) {
  return {
    name: `bench: ${shape.name}`,
    limits: { maxParallelToolCalls: shape.cap },
    tools: [LOOKUP_TOOL],
    model: {
      kind: "scripted" as const,
      turns: [
        ...shape.batches.map((size, step) => ({
          calls: Array.from({ length: size }, (_, index) => ({
            name: "lookup",
            arguments: { key: `k${step}-${index}` },
          })),
        })),
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  };
}

/** One gated write, then finish: the run waits at its barrier for a decision. */
export const GATED = {
  name: "bench: one gated write",
  tools: [
    {
      ...LOOKUP_TOOL,
      name: "deploy",
      resourceClass: "write" as const,
      effect: "NON_IDEMPOTENT_WRITE" as const,
      approval: "always" as const,
    },
  ],
  model: {
    kind: "scripted" as const,
    turns: [
      { calls: [{ name: "deploy", arguments: {} }] },
      { calls: [{ name: "finish", arguments: { summary: "done" } }] },
    ],
  },
};
