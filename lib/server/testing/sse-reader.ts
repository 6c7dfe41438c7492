export interface ReadSseMessage {
  id?: string;
  event: string;
  data: string;
}

/** One message block (the text between blank lines) as EventSource reads it, or null when it has no data; comment lines go to `comments`. */
function parseSseBlock(block: string, comments: string[]): ReadSseMessage | null {
  const message: ReadSseMessage = { event: "message", data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) comments.push(line);
    else if (line.startsWith("id: ")) message.id = line.slice(4);
    else if (line.startsWith("event: ")) message.event = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
  }
  if (data.length === 0) return null;
  message.data = data.join("\n");
  return message;
}

/** Every whole message of a stream's text (a last, unfinished block is left out). */
export function parseSseText(text: string): ReadSseMessage[] {
  const blocks = text.split("\n\n").slice(0, -1);
  return blocks.flatMap((block) => parseSseBlock(block, []) ?? []);
}

/**
 * Reads SSE messages from a response body, one at a time, the way EventSource frames them; comment
 * lines (keep-alives, `: …`) are kept aside in `comments`.
 */
export function openSseReader(response: Response) {
  if (!response.body) throw new Error("no body");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  return readSseMessages(
    async () => {
      const chunk = await reader.read();
      return chunk.done ? null : chunk.value;
    },
    () => reader.cancel(),
  );
}

/**
 * Reads SSE messages from a stream's text as `nextChunk` hands it on (null: the stream ended), for
 * a client that is not `fetch` (the bench's, `bench/http-client.ts`).
 */
export function readSseMessages(nextChunk: () => Promise<string | null>, cancel: () => Promise<void>) {
  let buffer = "";
  const comments: string[] = [];
  async function next(): Promise<ReadSseMessage | null> {
    for (;;) {
      // Every whole block already here first: one chunk often holds several (`retry:` and the first event).
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message = parseSseBlock(block, comments);
        if (message) return message;
      }
      const chunk = await nextChunk();
      if (chunk === null) return null;
      buffer += chunk;
    }
  }
  /** Messages until one matches, inclusive (or until the stream ends). */
  async function until(predicate: (message: ReadSseMessage) => boolean): Promise<ReadSseMessage[]> {
    const seen: ReadSseMessage[] = [];
    for (;;) {
      const message = await next();
      if (!message) return seen;
      seen.push(message);
      if (predicate(message)) return seen;
    }
  }
  return { next, until, comments, cancel };
}
