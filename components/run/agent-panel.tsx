import type { RunView } from "@/lib/runtime/browser";

/** What the run page says of the agent that drives a run from elsewhere (docs/agent-api.md). */
export interface AgentSummary {
  name: string;
  version: string | null;
  traceId: string | null;
  metadata: Record<string, string>;
  tokenName: string;
  ownerName: string;
  /** The tools the agent executes itself; every other call was executed by the server. */
  tools: string[];
}

/** Who drives the run, and which of its calls the agent executed and which the server did. */
export function AgentPanel({ agent, view }: { agent: AgentSummary; view: RunView }) {
  const calls = view.steps.flatMap((step) => step.calls);
  const byAgent = calls.filter((call) => agent.tools.includes(call.name));
  const byServer = calls.filter((call) => !agent.tools.includes(call.name));
  const list = (items: typeof calls) =>
    items.length === 0 ? "none" : items.map((call) => `${call.name} (${call.id}, ${call.status})`).join(", ");
  return (
    <section className="panel" aria-labelledby="agent-heading">
      <h2 id="agent-heading">Driven by the agent {agent.name}</h2>
      <p className="muted">
        {agent.version && <>version {agent.version} · </>}
        {agent.traceId && (
          <>
            trace <code>{agent.traceId}</code> ·{" "}
          </>
        )}
        token {agent.tokenName} of {agent.ownerName}
        {Object.entries(agent.metadata).map(([key, value]) => (
          <span key={key}>
            {" "}
            · {key}: {value}
          </span>
        ))}
      </p>
      <p>
        <strong>Executed by the agent:</strong> {list(byAgent)}
      </p>
      <p>
        <strong>Executed by the server:</strong> {list(byServer)}
      </p>
    </section>
  );
}
