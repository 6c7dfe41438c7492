/**
 * The "How this works" panel's words. docs/planning-rules.md has the same
 * sentences under "In short" (a test keeps them identical), so the page and
 * the docs never explain the runtime two ways.
 */
export const HOW_IT_WORKS: ReadonlyArray<{ term: string; text: string }> = [
  {
    term: "Cap",
    text: "The cap (maxParallelToolCalls) is the most calls in flight at once. It is never exceeded.",
  },
  {
    term: "Waves",
    text: "A batch of reads larger than the cap runs in waves of at most the cap, in order, instead of asking the model for a smaller batch.",
  },
  {
    term: "Barrier",
    text: "A call that needs approval is a barrier: the calls before it run, then the run waits for a person.",
  },
  {
    term: "Retained",
    text: "The calls after a barrier are retained: they keep the arguments the model sent and run only if the barrier is approved and succeeds.",
  },
  {
    term: "Invalidated",
    text: "When a barrier is denied or fails, or the turn is cancelled, every later call that has not run is invalidated: it never runs, and the model is told why in its next step.",
  },
];
