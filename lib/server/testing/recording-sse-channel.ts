import type { SseChannel, SseMessage } from "@/lib/server/streams/sse-channel";

/** A channel that keeps each write it was asked for (one message, or several at once) in order. */
export function recordingSseChannel() {
  const writes: SseMessage[][] = [];
  let isClosed = false;
  const channel: SseChannel = {
    send: (message) => writes.push([message]),
    sendAll: (messages) => writes.push([...messages]),
    whenReady: () => Promise.resolve(),
    close: () => {
      isClosed = true;
    },
    get isClosed() {
      return isClosed;
    },
  };
  /** Every message sent so far, in order. */
  const sent = () => writes.flat();
  return { channel, writes, sent };
}
