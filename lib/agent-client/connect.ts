/**
 * The client's entry: a connection to a playground server with an agent
 * token (docs/agents.md). Framework-free: Node 22's fetch, nothing else.
 */
import type { AgentNext, OpenRunInput } from "./agent-client-types";
import { AgentHttp, type RetryOptions } from "./agent-http";
import { AgentRun } from "./agent-run";

export interface ConnectOptions {
  /** The server, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** An API token made with the `agent` role (docs/agent-api.md). */
  token: string;
  /** Backoff on 503 or no answer (default: 6 tries, 250 ms doubling, at most 10 s apart). */
  retry?: Partial<RetryOptions>;
  fetch?: typeof fetch;
}

export interface AgentClient {
  /** Opens a run with the agent's tools; it waits for turn 0. */
  openRun(input: OpenRunInput, options?: { signal?: AbortSignal }): Promise<AgentRun>;
  /**
   * Picks up a run this token opened, by id, where it stands (another
   * process, hours later): its open releases, or the turn to submit.
   * `leaseSeconds` is the run's `releaseLeaseSeconds`, when it was not the default.
   */
  resumeRun(runId: string, options?: { signal?: AbortSignal; leaseSeconds?: number }): Promise<AgentRun>;
}

export function connect(options: ConnectOptions): AgentClient {
  const http = new AgentHttp(options);
  return {
    async openRun(input, { signal } = {}) {
      const opened = await http.request<{ runId: string; next: AgentNext }>("POST", "", {
        body: input,
        signal,
        // A second POST would open a second run: a lost answer is not retried (a 503 is: nothing was opened).
        repeatable: false,
      });
      return new AgentRun(http, opened.next, { leaseSeconds: input.releaseLeaseSeconds });
    },
    async resumeRun(runId, { signal, leaseSeconds } = {}) {
      const state = await http.request<AgentNext>("GET", `/${encodeURIComponent(runId)}`, { signal });
      return new AgentRun(http, state, { leaseSeconds });
    },
  };
}
