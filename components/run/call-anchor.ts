/**
 * Where a call sits on its run page: the id of its row in the step's call table, so that another
 * page (the policy page's backtest and disagreements) can link straight to it.
 */
export function callAnchorId(stepIndex: number, batchIndex: number): string {
  return `step-${stepIndex}-call-${batchIndex}`;
}

/** A link to one call on its run page; `step` is 1-based, as the run page and the backtest number steps. */
export function callHref(runId: string, step: number, batchIndex: number): string {
  return `/runs/${runId}#${callAnchorId(step - 1, batchIndex)}`;
}
