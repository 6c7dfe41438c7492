import type { RunView } from "@/lib/runtime/browser";
import { HOW_IT_WORKS } from "./how-it-works-text";

/** One step's numbers in the panel's words. */
export interface StepExample {
  stepIndex: number;
  calls: number;
  cap: number;
  waves: number;
  barriers: number;
  retained: number;
  invalidated: number;
}

/**
 * A short explanation of the cap, waves, barriers, retained and invalidated
 * calls, with a run's own numbers on the run page (the scenario's cap in the
 * playground).
 */
export function HowItWorks({ example, cap }: { example?: StepExample | null; cap?: number }) {
  return (
    <details className="panel how-it-works">
      <summary>How this works</summary>
      <dl>
        {HOW_IT_WORKS.map(({ term, text }) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{text}</dd>
          </div>
        ))}
      </dl>
      {example ? (
        <p>
          <strong>In this run</strong>, step {example.stepIndex + 1} had {plural(example.calls, "call")} at a
          cap of {example.cap}: {plural(example.waves, "wave")}, {plural(example.barriers, "barrier")},{" "}
          {example.retained} retained after its first barrier and {example.invalidated} invalidated.
        </p>
      ) : (
        cap !== undefined && (
          <p>
            <strong>This scenario&rsquo;s cap is {cap}</strong>: a batch of more than {cap} reads runs in
            waves of up to {cap}.
          </p>
        )
      )}
    </details>
  );
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The run's most telling step: the first with a barrier, else the first with several waves, else the first. */
export function exampleStep(view: RunView): StepExample | null {
  const cap = view.limits?.maxParallelToolCalls;
  if (cap === undefined) return null;
  const examples = view.steps.map((step): StepExample => {
    const segments = step.plan.segments;
    const firstBarrier = segments.flatMap((segment) =>
      segment.kind === "barrier" ? [segment.batchIndex] : [],
    )[0];
    return {
      stepIndex: step.index,
      calls: step.calls.length,
      cap,
      waves: segments.filter((segment) => segment.kind === "wave").length,
      barriers: segments.filter((segment) => segment.kind === "barrier").length,
      retained:
        firstBarrier === undefined ? 0 : step.calls.filter((call) => call.batchIndex > firstBarrier).length,
      invalidated: step.calls.filter((call) => call.status === "invalidated").length,
    };
  });
  return (
    examples.find((example) => example.barriers > 0) ??
    examples.find((example) => example.waves > 1) ??
    examples[0] ??
    null
  );
}
