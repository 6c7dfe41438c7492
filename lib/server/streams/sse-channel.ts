/** Server-sent events over a web `Response` (STYLE: headers, heartbeats, clean-up on abort). */
import { getLogger } from "@/lib/server/ops/logger";

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

/** How often an idle stream sends a comment, so proxies and browsers keep it open. */
export const HEARTBEAT_MS = 15_000;

/** How long a browser waits before reconnecting after the stream drops. */
const RECONNECT_MS = 1_000;

/**
 * How many bytes a stream's buffer holds before a producer that can wait
 * (a history being replayed page by page) waits for the reader to take some.
 */
export const SSE_HIGH_WATER_BYTES = 64 * 1024;

/** The default cap on a stream's buffered bytes (`PLAYGROUND_STREAM_BUFFER_BYTES`). */
export const DEFAULT_SSE_BUFFER_BYTES = 256 * 1024;

/** The final event of a stream closed because its reader fell too far behind. */
export const SSE_DROPPED_EVENT = "dropped";

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export interface SseChannel {
  /**
   * Sends a message at once. A reader that has left more than the cap
   * unread gets, instead of it, the final `dropped` event, and the stream
   * closes: it resumes by reconnecting (`Last-Event-ID`) like any dropped stream.
   */
  send(message: SseMessage): void;
  /**
   * Sends messages at once, in one write: a commit's events reach the reader together. The cap
   * holds for each as for {@link send}: those after the one that finds it reached are not sent.
   */
  sendAll(messages: readonly SseMessage[]): void;
  /**
   * Resolves when the buffer has room below its high-water mark (or the
   * stream closed): a producer that can choose its pace (a replay) waits
   * for it before each message, so a slow reader holds one page, not a history.
   */
  whenReady(): Promise<void>;
  /** Ends the stream from the server side. */
  close(): void;
  readonly isClosed: boolean;
}

/** One SSE message; multi-line data is split so that it survives the framing. */
export function formatSseMessage({ id, event, data }: SseMessage): string {
  let text = "";
  if (id !== undefined) text += `id: ${id}\n`;
  if (event !== undefined) text += `event: ${event}\n`;
  for (const line of data.split("\n")) text += `data: ${line}\n`;
  return `${text}\n`;
}

export interface SseOptions {
  heartbeatMs?: number;
  /** The most bytes left unread before the stream is dropped ({@link DEFAULT_SSE_BUFFER_BYTES}). */
  bufferBytes?: number;
  /** Runs once when the stream ends, however it ends (even when `start` failed). */
  onClose?: () => void;
}

/**
 * Opens an SSE response and hands its channel to `start`, which returns its
 * clean-up. The clean-up runs exactly once, whether the client went away
 * (`signal` aborts, or the body is cancelled) or the server closed the stream.
 *
 * The body is a byte-counted stream: what the reader has not taken stays in
 * its queue, and nothing is queued past `bufferBytes`. A message that finds
 * the queue at the cap is not queued; the reader gets a final `dropped`
 * event after what it has not read yet, and the stream ends (its browser
 * resumes from its last id). Heartbeats are only sent to an empty queue: a
 * reader that has bytes waiting has no idle connection to keep open.
 */
export function openSseResponse(
  signal: AbortSignal,
  start: (channel: SseChannel) => Promise<() => void>,
  options: SseOptions = {},
): Response {
  const encoder = new TextEncoder();
  const bufferBytes = options.bufferBytes ?? DEFAULT_SSE_BUFFER_BYTES;
  let isClosed = false;
  let cleanUp: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let waiters: Array<() => void> = [];

  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };

  const finish = () => {
    if (isClosed) return;
    isClosed = true;
    clearInterval(heartbeat);
    signal.removeEventListener("abort", finish);
    cleanUp?.();
    options.onClose?.();
    wake();
    try {
      controller.close();
    } catch {
      // Already closed or cancelled by the client: nothing to end.
    }
  };

  /** Bytes queued and not yet taken by the reader. */
  const queuedBytes = () => SSE_HIGH_WATER_BYTES - (controller.desiredSize ?? 0);

  const enqueue = (text: string) => {
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      finish();
    }
  };

  /**
   * Writes messages' texts in one chunk, as long as the reader has left less than the cap unread
   * before each of them (counting those before it in the chunk): the message that finds the cap
   * reached is not written, and the reader gets, after what came before it, the final `dropped` event.
   */
  const write = (texts: readonly string[]) => {
    let chunk = "";
    let chunkBytes = 0;
    for (const text of texts) {
      if (isClosed) return;
      if (queuedBytes() + chunkBytes >= bufferBytes) {
        if (chunk) enqueue(chunk);
        enqueue(
          formatSseMessage({
            event: SSE_DROPPED_EVENT,
            data: JSON.stringify({
              reason: "slow_reader",
              message: `The stream was closed because more than ${bufferBytes} bytes were waiting to be read; reconnect (Last-Event-ID) to resume.`,
            }),
          }),
        );
        finish();
        return;
      }
      chunk += text;
      chunkBytes += Buffer.byteLength(text);
    }
    if (chunk && !isClosed) enqueue(chunk);
  };

  const channel: SseChannel = {
    send: (message) => write([formatSseMessage(message)]),
    sendAll: (messages) => write(messages.map(formatSseMessage)),
    whenReady: () =>
      isClosed || (controller.desiredSize ?? 0) > 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push(resolve)),
    close: finish,
    get isClosed() {
      return isClosed;
    },
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        write([`retry: ${RECONNECT_MS}\n\n`]);
        heartbeat = setInterval(() => {
          if (queuedBytes() <= 0) write([": heartbeat\n\n"]);
        }, options.heartbeatMs ?? HEARTBEAT_MS);
        signal.addEventListener("abort", finish);
        // The client may have left while the route was still checking the request.
        if (signal.aborted) finish();
        start(channel).then(
          (stop) => {
            if (isClosed) stop();
            else cleanUp = stop;
          },
          (error: unknown) => {
            getLogger().error({ err: error }, "an event stream failed to start");
            finish();
          },
        );
      },
      // The reader took enough that the queue is below its high-water mark (or it waits for more).
      pull: wake,
      cancel: finish,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: SSE_HIGH_WATER_BYTES }),
  );
  return new Response(body, { headers: SSE_HEADERS });
}
