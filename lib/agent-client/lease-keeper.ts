/**
 * Renews the run's release leases (a heartbeat) while the agent executes
 * calls, so a call longer than the lease is not released again or settled
 * `interrupted` (docs/agent-api.md, "When a lease lapses").
 */
export class LeaseKeeper {
  #timer: ReturnType<typeof setInterval> | null = null;
  #busy = 0;

  constructor(
    private readonly heartbeat: () => Promise<unknown>,
    private readonly intervalMs: () => number,
  ) {}

  /** One more call is running: heartbeats go on until each started call ended. */
  begin(): void {
    this.#busy += 1;
    if (this.#timer) return;
    // A third of the lease: two heartbeats may be lost (or slow) before it lapses.
    this.#timer = setInterval(() => {
      this.heartbeat().catch(() => {});
    }, this.intervalMs());
  }

  end(): void {
    this.#busy = Math.max(0, this.#busy - 1);
    if (this.#busy === 0) this.stop();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#busy = 0;
  }
}
