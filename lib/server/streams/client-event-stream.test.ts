import { describe, expect, it, vi } from "vitest";
import { openTestDatabase } from "@/db/testing/test-database";
import { createRunService } from "@/lib/server/runs/run-service";
import { processModelsAndMcp } from "@/lib/server/server-context";
import type { SseMessage } from "@/lib/server/streams/sse-channel";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { recordingSseChannel } from "@/lib/server/testing/recording-sse-channel";
import { buildScenario } from "@/lib/server/testing/scenario-harness";
import { pipeRunEvents } from "./client-event-stream";

const typeOf = (message: SseMessage) => (JSON.parse(message.data) as { type?: string }).type;

describe("a run's event stream", () => {
  it("sends the events of one commit in one write, every event once and in order", async () => {
    const handle = await openTestDatabase();
    try {
      const service = createRunService(handle, processModelsAndMcp());
      const { runId, settled } = await service.startRun(buildScenario(gatedWriteScenario("one write")));
      expect(await settled).toBe("WAITING_FOR_APPROVAL");

      const { channel, writes, sent } = recordingSseChannel();
      const stop = await pipeRunEvents(service, runId, 0, channel);
      await vi.waitFor(
        () => expect(sent().some((message) => typeOf(message) === "awaiting_approval")).toBe(true),
        {
          timeout: 10_000,
        },
      );
      const turnDigest = (await service.loadView(runId))?.pending?.turnDigest;
      await service.decide(runId, { approve: true, turnDigest, actor: "alice" });
      await vi.waitFor(() => expect(channel.isClosed).toBe(true), { timeout: 10_000 });
      stop();

      // The decision's one statement appended its approval and its barrier's call_started: the
      // page that decided gets them in one write, not one after the other.
      const decided = writes.find((write) => write.some((message) => typeOf(message) === "approval_decided"));
      expect(decided?.map(typeOf)).toContain("call_started");
      const ids = sent().flatMap((message) => (message.id === undefined ? [] : [Number(message.id)]));
      expect(ids).toEqual((await service.readEvents(runId, 0)).map((event) => event.seq));
      expect(sent().at(-1)?.event).toBe("end");
    } finally {
      await handle.close();
    }
  }, 60_000);
});
