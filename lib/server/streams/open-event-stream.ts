import "server-only";
import type { Identity } from "@/lib/server/auth/identity";
import { openSseResponse, type SseChannel } from "@/lib/server/streams/sse-channel";
import { registerStream, reserveStreamSlot } from "./open-streams";
import { readStreamSettings } from "./stream-settings";

/**
 * Opens an event stream (a run's or the inbox's) within this instance's
 * bounds (docs/streams.md): one of the slots of `identity` and of the
 * instance, or 429 `too_many_streams`; a buffer capped at
 * `PLAYGROUND_STREAM_BUFFER_BYTES`. The slot is held, and the stream counted
 * as open, from now until the stream ends, however it ends.
 */
export function openEventStream(
  request: Request,
  identity: Identity,
  start: (channel: SseChannel) => Promise<() => void>,
): Response {
  const settings = readStreamSettings();
  const release = reserveStreamSlot(identity.userId, settings);
  try {
    return openSseResponse(
      request.signal,
      async (channel) => {
        const forget = registerStream(channel);
        try {
          const stop = await start(channel);
          return () => {
            forget();
            stop();
          };
        } catch (error) {
          forget();
          throw error;
        }
      },
      { bufferBytes: settings.bufferBytes, onClose: release },
    );
  } catch (error) {
    release();
    throw error;
  }
}
