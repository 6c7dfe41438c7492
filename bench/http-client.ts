// The edge bench's HTTP client (docs/performance.md#the-edge-over-http): Node's own `http` module on
// one keep-alive agent. Not `fetch`: in the bench the client shares the server's process, and
// undici's fetch and its web streams cost that thread about 1.5 ms of CPU per decision (request
// objects, body extraction, a stream piped through a decoder), time the server's figures then
// carried. An agent's client runs in a process of its own. It asks for no compression: the
// answers timed are small, and the in-process server compresses nothing anyway.
import http from "node:http";
import https from "node:https";
import { readSseMessages } from "@/lib/server/testing/sse-reader";

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

interface Sent {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

function send(url: string, { method = "GET", headers = {}, body }: Sent): Promise<http.IncomingMessage> {
  const { protocol } = new URL(url);
  if (protocol !== "http:" && protocol !== "https:") throw new Error(`${url}: not an http(s) address`);
  const sent =
    body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const request = (protocol === "https:" ? https : http).request(
      url,
      { method, headers: sent, agent: agents[protocol] },
      resolve,
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** Sends a request and reads its whole answer as text. */
export async function request(url: string, sent: Sent = {}): Promise<{ status: number; text: string }> {
  const response = await send(url, sent);
  response.setEncoding("utf8");
  let text = "";
  for await (const chunk of response) text += chunk;
  return { status: response.statusCode ?? 0, text };
}

/** Opens an event stream (`GET`), read message by message as EventSource frames them. */
export async function openEventStream(url: string, headers: Record<string, string>) {
  const response = await send(url, { headers });
  if (response.statusCode !== 200) {
    response.resume();
    throw new Error(`${url}: ${response.statusCode}`);
  }
  const chunks = response.setEncoding("utf8")[Symbol.asyncIterator]();
  return readSseMessages(
    async () => {
      const chunk = await chunks.next();
      return chunk.done ? null : (chunk.value as string);
    },
    async () => {
      response.destroy();
    },
  );
}
