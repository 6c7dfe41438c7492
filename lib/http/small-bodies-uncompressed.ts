/**
 * The body size below which Next's response compression (the `compression` middleware it runs
 * unless `compress: false`) would skip gzip if it could see the length: its own default threshold.
 */
export const SMALL_BODY_BYTES = 1024;

/** Answers built by {@link jsonAnswer}: their size was known as they were made, nothing to read. */
const sized = new WeakSet<Response>();

const encoder = new TextEncoder();

/**
 * `Response.json` for the routes, with the size known as the answer is made: a small one is marked
 * no-transform at once, and {@link sendSmallJsonUncompressed} passes either kind on without reading
 * it back. Reading an answer back (two stream reads, a copy of its headers, a new body and
 * response) cost a small JSON answer 0.2–0.4 ms on a 2-core machine
 * (docs/performance.md#small-answers-sent-as-they-are).
 */
export function jsonAnswer(body: unknown, init: ResponseInit = {}): Response {
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) throw new TypeError("jsonAnswer: the answer has no JSON form"); // as Response.json
  const bytes = encoder.encode(text);
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  if (bytes.byteLength < SMALL_BODY_BYTES) sayNoTransform(headers);
  const response = new Response(bytes, { ...init, headers });
  sized.add(response);
  return response;
}

/**
 * A JSON answer smaller than {@link SMALL_BODY_BYTES}, marked so that it is sent as it is. Next
 * streams every route's body without a `Content-Length`, so its compression cannot see the size
 * and gzips even `{"ok":true}`, and the client unzips it: a zlib stream at each end, about 2–3 ms
 * a request on a 2-core machine (docs/performance.md#small-answers-sent-as-they-are), for nothing
 * saved. `Cache-Control: no-transform` is the one signal that compression heeds before it sees a
 * byte (HTTP's own: no intermediary may change the body). An answer made by {@link jsonAnswer}
 * is already marked as its size says. Of any other, only the first {@link SMALL_BODY_BYTES} are
 * read to tell: a larger answer goes on as it came, streamed and compressed as before, and so does
 * anything that is not JSON (event streams, CSV).
 */
export async function sendSmallJsonUncompressed(response: Response): Promise<Response> {
  if (sized.has(response)) return response;
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json") || !response.body) return response;
  const reader = response.body.getReader();
  const head: Uint8Array[] = [];
  let length = 0;
  let isWhole = false;
  while (length < SMALL_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) {
      isWhole = true;
      break;
    }
    head.push(value);
    length += value.byteLength;
  }
  const headers = new Headers(response.headers);
  const init = { status: response.status, statusText: response.statusText, headers };
  if (isWhole) {
    sayNoTransform(headers);
    return new Response(new Blob(head as BlobPart[]), init);
  }
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of head) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(rest, init);
}

function sayNoTransform(headers: Headers): void {
  const cacheControl = headers.get("cache-control");
  headers.set("cache-control", cacheControl ? `${cacheControl}, no-transform` : "no-transform");
}
