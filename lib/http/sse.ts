/** Server-sent events over a web `Response` (STYLE: headers, heartbeats, clean-up on abort). */
import { getLogger } from "@/lib/server/logger";

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

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export interface SseChannel {
  send(message: SseMessage): void;
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

/**
 * Opens an SSE response and hands its channel to `start`, which returns its
 * clean-up. The clean-up runs exactly once, whether the client went away
 * (`signal` aborts, or the body is cancelled) or the server closed the stream.
 */
export function openSseResponse(
  signal: AbortSignal,
  start: (channel: SseChannel) => Promise<() => void>,
  options: { heartbeatMs?: number } = {},
): Response {
  const encoder = new TextEncoder();
  let isClosed = false;
  let cleanUp: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  const finish = () => {
    if (isClosed) return;
    isClosed = true;
    clearInterval(heartbeat);
    signal.removeEventListener("abort", finish);
    cleanUp?.();
    try {
      controller.close();
    } catch {
      // Already closed or cancelled by the client: nothing to end.
    }
  };

  const write = (text: string) => {
    if (isClosed) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      finish();
    }
  };

  const channel: SseChannel = {
    send: (message) => write(formatSseMessage(message)),
    close: finish,
    get isClosed() {
      return isClosed;
    },
  };

  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      write(`retry: ${RECONNECT_MS}\n\n`);
      heartbeat = setInterval(() => write(": heartbeat\n\n"), options.heartbeatMs ?? HEARTBEAT_MS);
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
    cancel: finish,
  });
  return new Response(body, { headers: SSE_HEADERS });
}
