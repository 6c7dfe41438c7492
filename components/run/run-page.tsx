"use client";

import { useQuery } from "@tanstack/react-query";
import { runViewQueryOptions } from "@/lib/queries/query-options";
import type { RunView } from "@/lib/runtime/browser";
import { sumUsage } from "@/lib/runtime/browser";
import { isTerminalStatus } from "@/lib/runtime/run/is-terminal-status";
import { useCan } from "../auth/viewer-context";
import { exampleStep, HowItWorks } from "../help/how-it-works";
import { McpServersPanel } from "../playground/mcp-servers-panel";
import { StatusBadge } from "../ui/status-badge";
import { AgentPanel, type AgentSummary } from "./agent-panel";
import { ApprovalPanel } from "./approval-panel";
import { CopyAsCurl } from "./copy-as-curl";
import { DecisionHistory } from "./decision-history";
import { EventLog } from "./event-log";
import { RunControls } from "./run-controls";
import { type HousekeepingState, RunHousekeeping } from "./run-housekeeping";
import { RunTimeline } from "./run-timeline";
import { RunTimes } from "./run-times";
import { RunTranscript } from "./run-transcript";
import { StepCard } from "./step-card";
import { ToolAllowances } from "./tool-allowances";
import { type StreamState, useRunStream } from "./use-run-stream";
import { ViewTabs } from "./view-tabs";

const STREAM_LABELS: Record<StreamState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  ended: "Final",
};

/** The live run: header and controls, the approval panel, the steps as a timeline, the event log. */
export function RunPage({
  initialView,
  initialWorkerLost = false,
  agent = null,
  housekeeping = { archivedAt: null, canTidy: false },
}: {
  initialView: RunView;
  /** Archived or not, and whether the viewer may archive or delete the run. */
  housekeeping?: HousekeepingState;
  initialWorkerLost?: boolean;
  /** The agent that drives the run from elsewhere, when one does. */
  agent?: AgentSummary | null;
}) {
  const { data: view, error: refreshError } = useQuery({
    ...runViewQueryOptions(initialView.runId),
    initialData: initialView,
  });
  const isFinished = isTerminalStatus(view.status);
  const tokens = sumUsage(view.steps);
  const stream = useRunStream(view.runId, isFinished, initialWorkerLost);
  // Listing a server's tools is an operator's view (it may start the server).
  const canListServers = useCan("operator");
  // Forking opens the playground to start a new run: an operator's.
  const canStartRuns = useCan("operator");

  return (
    <div className="run-page">
      <header className="run-header">
        <div>
          <h1>{view.name || "Run"}</h1>
          <p className="muted run-id">
            Run <code>{view.runId}</code>
            {view.startedBy && <> · started by {view.startedBy.name}</>}
            {" · "}
            {view.modelCalls} {view.modelCalls === 1 ? "completion" : "completions"}
            {tokens && <>, {tokens.totalTokens} tokens</>}
          </p>
          {view.forkedFrom && (
            <p className="muted run-fork">
              Forked from run{" "}
              <a href={`/runs/${view.forkedFrom.runId}`}>
                <code>{view.forkedFrom.runId.slice(0, 8)}</code>
              </a>{" "}
              at step {view.forkedFrom.step} ·{" "}
              <a href={`/compare?runs=${view.forkedFrom.runId},${view.runId}`}>Compare with original</a>
            </p>
          )}
          <RunTimes view={view} />
        </div>
        <div className="run-state">
          <span role="status" aria-label="Run status">
            <StatusBadge status={stream.workerLost ? "RECOVERING" : view.status} />
          </span>
          <span className="stream-state" role="status" aria-label="Live updates" data-state={stream.state}>
            {STREAM_LABELS[stream.state]}
          </span>
          <RunControls runId={view.runId} isActive={!isFinished} />
          <RunHousekeeping
            runId={view.runId}
            runName={view.name}
            isFinished={isFinished}
            initial={housekeeping}
          />
          <span className="run-links">
            <a href={`/api/runs/${view.runId}/scenario?download=1`} download>
              Save as scenario
            </a>
            <a href={`/?from=${view.runId}`}>Replay in the playground</a>
            <a href={`/api/runs/${view.runId}/report`} download={`run-${view.runId}-report.json`}>
              Download report
            </a>
            <CopyAsCurl runId={view.runId} turnDigest={view.pending?.turnDigest ?? null} />
          </span>
        </div>
      </header>
      {refreshError && (
        <p className="alert" role="alert">
          <strong>Could not refresh this run.</strong> {refreshError.message} What is shown may be behind; it
          updates again as soon as the server answers.
        </p>
      )}
      {stream.workerLost && (
        <p className="notice" role="status">
          <strong>The server running this run stopped.</strong> Another instance takes it over as soon as its
          lease runs out and goes on from what was saved: nothing that was stored is lost, and no write that
          cannot be repeated runs twice. This page follows along.
        </p>
      )}
      {view.error && (
        <p className="alert" role="alert">
          <strong>{view.error.code}.</strong> {view.error.message}
        </p>
      )}
      {agent && <AgentPanel agent={agent} view={view} />}
      <ApprovalPanel view={view} />
      <ToolAllowances view={view} />
      <RunTimeline runId={view.runId} log={view.log} />
      <ViewTabs
        label="How to show the run"
        tabs={[
          {
            id: "plan",
            label: "Plan",
            content: (
              <section aria-label="Steps" className="timeline">
                {view.steps.length === 0 && (
                  <p className="muted">
                    {isFinished
                      ? "The run ended before any step."
                      : "Waiting for the model\u2019s first batch…"}
                  </p>
                )}
                {view.steps.map((step) => (
                  <StepCard
                    key={step.index}
                    step={step}
                    pending={view.pending}
                    forkHref={canStartRuns ? `/?fork=${view.runId}&step=${step.index + 1}` : null}
                  />
                ))}
              </section>
            ),
          },
          {
            id: "transcript",
            label: "Transcript",
            content: <RunTranscript view={view} draft={stream.draft} />,
          },
        ]}
      />
      <DecisionHistory decisions={view.decisions} />
      {view.mcpServers.length > 0 && canListServers && <McpServersPanel only={view.mcpServers} />}
      <HowItWorks example={exampleStep(view)} />
      <EventLog log={view.log} />
    </div>
  );
}
