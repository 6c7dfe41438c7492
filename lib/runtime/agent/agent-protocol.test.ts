import { createMemoryAgentMailbox, createMemoryRunHost } from "../testing";
import { createMemoryRunStore } from "../testing/memory-run-store";
import { describeAgentProtocolContract } from "./agent-protocol.contract";

describeAgentProtocolContract("memory", async () => {
  const clock = { offset: 0 };
  const now = () => Date.now() + clock.offset;
  const store = createMemoryRunStore({ now });
  const mailbox = createMemoryAgentMailbox();
  const contexts = new Map();
  const host = (instanceId: string) =>
    createMemoryRunHost({
      store,
      contexts,
      instanceId,
      now,
      deadlineTimers: false,
      agents: { mailbox, pollMs: 10 },
    });
  return {
    hosts: [host("a"), host("b")],
    mailbox,
    clock,
    // The store's clock is the hosts': moving it past the run's lease (60 s) ends it.
    expireRunLease: async () => {
      clock.offset += 120_000;
    },
    close: async () => {},
  };
});
