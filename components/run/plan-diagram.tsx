import type { CallView, PendingTurnView, StepView } from "@/lib/runtime/browser";
import { describeCallState } from "../ui/describe-call-state";

/**
 * A step's plan as the runtime made it (docs/planning-rules.md): waves as columns of calls
 * dispatched together, barriers as single gated calls, in execution order.
 * Drawn from the plan alone, so it appears before anything has run.
 */
export function PlanDiagram({ step, pending }: { step: StepView; pending: PendingTurnView | null }) {
  const byIndex = new Map(step.calls.map((call) => [call.batchIndex, call]));
  const scheduled = new Set(
    step.plan.segments.flatMap((segment) =>
      segment.kind === "wave" ? segment.batchIndexes : [segment.batchIndex],
    ),
  );
  const unscheduled = step.calls.filter((call) => !scheduled.has(call.batchIndex));
  const waitingAt = pending?.stepIndex === step.index ? pending.calls[0]?.batchIndex : undefined;
  let waveNumber = 0;
  let barrierNumber = 0;

  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a plan wider than the screen scrolls, and a keyboard must reach it to scroll it (WCAG scrollable-region-focusable)
    <ol className="plan" aria-label={`Plan of step ${step.index + 1}`} tabIndex={0}>
      {step.plan.segments.map((segment) => {
        if (segment.kind === "wave") {
          waveNumber += 1;
          return (
            <li key={`wave-${waveNumber}`} className="segment segment-wave">
              <span className="segment-title">Wave {waveNumber}</span>
              <ul>
                {segment.batchIndexes.map((batchIndex) => (
                  <CallChip key={batchIndex} call={byIndex.get(batchIndex)} batchIndex={batchIndex} />
                ))}
              </ul>
            </li>
          );
        }
        barrierNumber += 1;
        return (
          <li key={`barrier-${barrierNumber}`} className="segment segment-barrier">
            <span className="segment-title">Barrier {barrierNumber}</span>
            <ul>
              <CallChip
                call={byIndex.get(segment.batchIndex)}
                batchIndex={segment.batchIndex}
                isAwaitingApproval={waitingAt === segment.batchIndex}
              />
            </ul>
          </li>
        );
      })}
      {unscheduled.length > 0 && (
        <li className="segment segment-skipped">
          <span className="segment-title">
            {step.plan.kind === "repair" ? "Sent back for repair" : "Not dispatched"}
          </span>
          <ul>
            {unscheduled.map((call) => (
              <CallChip key={call.batchIndex} call={call} batchIndex={call.batchIndex} />
            ))}
          </ul>
        </li>
      )}
    </ol>
  );
}

function CallChip({
  call,
  batchIndex,
  isAwaitingApproval = false,
}: {
  call: CallView | undefined;
  batchIndex: number;
  isAwaitingApproval?: boolean;
}) {
  const state = call ? describeCallState(call, isAwaitingApproval) : { text: "unknown", tone: "unknown" };
  return (
    <li className="chip" data-state={state.tone}>
      <span className="chip-index">{batchIndex}</span> {call?.name ?? "?"}
      <span className="visually-hidden">: {state.text}</span>
    </li>
  );
}
