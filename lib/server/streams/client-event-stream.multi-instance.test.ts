import { describe, expect, it, vi } from "vitest";
import { openDatabase } from "@/db/client";
import { openTestDatabase } from "@/db/testing/test-database";
import { createRunService } from "@/lib/server/runs/run-service";
import { processModelsAndMcp } from "@/lib/server/server-context";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { recordingSseChannel } from "@/lib/server/testing/recording-sse-channel";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { pipeRunEvents } from "./client-event-stream";

// docs/streams.md#how-it-works: several instances share one Postgres and events fan out through
// LISTEN/NOTIFY. Only a server has two connections to one database.
describe("event streams across instances", () => {
  it.runIf(process.env.TEST_DATABASE_URL)(
    "a stream on one instance carries, live and in order, what another instance commits",
    async () => {
      const first = await openTestDatabase();
      const second = await openDatabase({ url: first.url });
      try {
        const writer = createRunService(first, processModelsAndMcp());
        const reader = createRunService(second, processModelsAndMcp());
        const { runId, settled } = await writer.startRun(buildScenario(gatedWriteScenario("two instances")));
        expect(await settled).toBe("WAITING_FOR_APPROVAL");

        const { channel, sent } = recordingSseChannel();
        const stop = await pipeRunEvents(reader, runId, 0, channel);
        await vi.waitFor(
          () => expect(sent().some((message) => message.data.includes('"awaiting_approval"'))).toBe(true),
          { timeout: 10_000 },
        );
        const turnDigest = (await writer.loadView(runId))?.pending?.turnDigest;

        await writer.decide(runId, { approve: true, turnDigest, actor: "alice" });
        await vi.waitFor(() => expect(channel.isClosed).toBe(true), { timeout: 10_000 });
        stop();

        const ids = sent()
          .filter((message) => message.id !== undefined)
          .map((message) => Number(message.id));
        const stored = await writer.readEvents(runId, 0);
        expect(ids).toEqual(stored.map((event) => event.seq));
        expect(sent().at(-1)?.event).toBe("end");
      } finally {
        await second.close();
        await first.close();
      }
    },
  );
});
