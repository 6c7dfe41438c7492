import { eq, sql } from "drizzle-orm";
import { createRunHost, type RunStore, RuntimeError } from "@/lib/runtime";
import { describeAgentProtocolContract } from "@/lib/runtime/agent/agent-protocol.contract";
import { runs } from "../schema";
import { openTestDatabase, testDriverName } from "../testing/test-database";
import { createAgentMailboxRepository } from "./agent-mailbox";
import { createRunRepository } from "./run-repository";
import { createRunToolContext } from "./run-tool-context";

// Two hosts over one database, as two instances: every rule of the protocol, on the database.
describeAgentProtocolContract(testDriverName, async () => {
  const handle = await openTestDatabase();
  const store = createRunRepository(handle.db);
  const mailbox = createAgentMailboxRepository(handle.db);
  const clock = { offset: 0 };
  const host = (instanceId: string, wrapStore?: (store: RunStore) => RunStore) =>
    createRunHost({
      store: wrapStore ? wrapStore(store) : store,
      createModel: () => ({
        complete: async () => {
          throw new RuntimeError("model_unavailable", "agent runs only");
        },
      }),
      createToolContext: (runId, signal) => createRunToolContext(handle.db, runId, signal),
      leaseMs: 60_000,
      instanceId,
      now: () => Date.now() + clock.offset,
      deadlineTimers: false,
      agents: { mailbox, pollMs: 10 },
    });
  return {
    hosts: [host("a"), host("b")],
    hostOver: (wrap) => host("c", wrap),
    mailbox,
    clock,
    // The database reads leases by its own clock.
    expireRunLease: async (runId) => {
      await handle.db
        .update(runs)
        .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(runs.id, runId));
    },
    close: () => handle.close(),
  };
});
