import type { PendingTurnView, StepView } from "@/lib/runtime/browser";
import { CallTable } from "./call-table";
import { PlanDiagram } from "./plan-diagram";

/** One model step: what the model said, the plan it got, its calls and its metrics (docs/run-report.md). */
export function StepCard({
  step,
  pending,
  forkHref = null,
}: {
  step: StepView;
  pending: PendingTurnView | null;
  /** Where "Fork from here" opens the playground with this run forked from this step; null: not offered. */
  forkHref?: string | null;
}) {
  const headingId = `step-${step.index}-heading`;
  const { metrics, plan } = step;
  return (
    <article className="panel step" aria-labelledby={headingId}>
      <header className="step-header">
        <h3 id={headingId}>Step {step.index + 1}</h3>
        <span className="tag">{plan.kind === "repair" ? "repair" : "execute"}</span>
        {!step.isFinished && <span className="muted">in progress</span>}
        {forkHref && (
          <a className="step-fork" href={forkHref}>
            Fork from here<span className="visually-hidden"> (step {step.index + 1})</span>
          </a>
        )}
      </header>
      {step.text && <p className="model-text">{step.text}</p>}
      {plan.problems.length > 0 && (
        <div className="problems">
          <h4>
            {plan.kind === "repair" ? "Sent back to the model to repair" : "Calls refused before dispatch"}
          </h4>
          <ul aria-label={`Problems of step ${step.index + 1}`}>
            {plan.problems.map((problem) => (
              <li key={`${problem.batchIndex}-${problem.code}`}>
                <code>{problem.code}</code>: {problem.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <PlanDiagram step={step} pending={pending} />
      <CallTable step={step} pending={pending} />
      <dl className="metrics" aria-label={`Metrics of step ${step.index + 1}`}>
        <Metric term="Calls" value={metrics.originalSize} />
        <Metric term="Cap" value={metrics.cap} />
        <Metric
          term="Waves"
          value={
            step.isFinished
              ? `${metrics.completedWaves} of ${metrics.waveCount} completed`
              : `${metrics.waveCount} planned`
          }
        />
        <Metric term="Barriers" value={metrics.approvalBarriers} />
        <Metric term="Retained" value={metrics.retainedCount} />
        <Metric term="Invalidated" value={metrics.invalidatedCount} />
        {metrics.repairReason && <Metric term="Repair reason" value={metrics.repairReason} />}
        {step.completion && <Metric term="Completion" value={formatLatency(step.completion.latencyMs)} />}
        {step.completion?.usage && (
          <Metric
            term="Tokens"
            value={`${step.completion.usage.totalTokens} (${step.completion.usage.promptTokens} in, ${step.completion.usage.completionTokens} out)`}
          />
        )}
      </dl>
      {step.completion?.preamble && (
        <details className="preamble">
          <summary>
            What the model was told first<span className="visually-hidden"> in step {step.index + 1}</span>{" "}
            (preamble v{step.completion.preamble.version})
          </summary>
          <pre>{step.completion.preamble.text}</pre>
        </details>
      )}
    </article>
  );
}

function formatLatency(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

function Metric({ term, value }: { term: string; value: string | number }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{value}</dd>
    </div>
  );
}
