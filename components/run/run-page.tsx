"use client";

import { useQuery } from "@tanstack/react-query";
import { runViewQueryOptions } from "@/lib/queries/run-queries";
import { isTerminalStatus } from "@/lib/run-view/is-terminal-status";
import { sumUsage } from "@/lib/runtime/view/run-report";
import type { RunView } from "@/lib/runtime/view/run-view";
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
import { StepCard } from "./step-card";
import { ToolAllowances } from "./tool-allowances";
import { type StreamState, useRunStream } from "./use-run-stream";

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
}: {
  initialView: RunView;
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
        </div>
        <div className="run-state">
          <span role="status" aria-label="Run status">
            <StatusBadge status={stream.workerLost ? "RECOVERING" : view.status} />
          </span>
          <span className="stream-state" role="status" aria-label="Live updates" data-state={stream.state}>
            {STREAM_LABELS[stream.state]}
          </span>
          <RunControls runId={view.runId} isActive={!isFinished} />
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
      <section aria-label="Steps" className="timeline">
        {view.steps.length === 0 && (
          <p className="muted">
            {isFinished ? "The run ended before any step." : "Waiting for the model\u2019s first batch…"}
          </p>
        )}
        {view.steps.map((step) => (
          <StepCard key={step.index} step={step} pending={view.pending} />
        ))}
      </section>
      <DecisionHistory decisions={view.decisions} />
      {view.mcpServers.length > 0 && canListServers && <McpServersPanel only={view.mcpServers} />}
      <HowItWorks example={exampleStep(view)} />
      <EventLog log={view.log} />
    </div>
  );
}
