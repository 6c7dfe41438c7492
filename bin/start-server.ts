// The production server (`npm start`, docs/operations.md#the-production-server): Next's production
// build behind Node's HTTP server, with the decision and the agent API on the API lane
// (bin/api-lane.ts) and every other request handed to Next as `next start` would handle it. It takes
// `next start`'s options that matter here (-p/--port, -H/--hostname, --keepAliveTimeout, PORT) and
// stops as it does: on SIGINT or SIGTERM it stops taking connections, lets the open requests finish,
// closes Next and exits.
//
// Runs under Node's own TypeScript support (erasable syntax only): `node bin/start-server.ts`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { type ApiLane, loadApiLane } from "./api-lane.ts";
import { startWithAsyncContextFrame } from "./async-context-frame.ts";
import { loadRefusalsBeforeNext, type RequestCheck } from "./refused-before-next.ts";

// First, before Next loads: on Node 22 this process starts again with AsyncLocalStorage's frame.
startWithAsyncContextFrame();

const USAGE = "usage: npm start [-- -p <port>] [-H <hostname>] [--keepAliveTimeout <ms>]";

function readOptions(): { port: number; hostname: string | undefined; keepAliveTimeout: number | undefined } {
  try {
    const { values } = parseArgs({
      options: {
        port: { type: "string", short: "p" },
        hostname: { type: "string", short: "H" },
        keepAliveTimeout: { type: "string" },
      },
    });
    const port = Number(values.port ?? process.env.PORT ?? 3000);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new Error(
        `the port must be a whole number from 0 to 65535, not "${values.port ?? process.env.PORT}"`,
      );
    }
    const keepAliveTimeout =
      values.keepAliveTimeout === undefined ? undefined : Number(values.keepAliveTimeout);
    if (keepAliveTimeout !== undefined && !(Number.isInteger(keepAliveTimeout) && keepAliveTimeout >= 0)) {
      throw new Error(`--keepAliveTimeout must be milliseconds, not "${values.keepAliveTimeout}"`);
    }
    return { port, hostname: values.hostname, keepAliveTimeout };
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
}

const { port, hostname, keepAliveTimeout } = readOptions();
const dir = process.cwd();
// As `next start` does, before Next (and the React it loads) reads it (Next's types make it read-only).
if (!process.env.NODE_ENV) Object.assign(process.env, { NODE_ENV: "production" });
const { default: next } = await import("next");

// Until Next is ready (below) a request waits for it, as under `next start`; then this is replaced.
let nextIsReady = (): void => {};
const nextReady = new Promise<void>((resolve) => {
  nextIsReady = resolve;
});
let serve = (incoming: IncomingMessage, outgoing: ServerResponse): void => {
  void nextReady.then(() => serve(incoming, outgoing));
};
const server = createServer((incoming, outgoing) => serve(incoming, outgoing));
if (keepAliveTimeout !== undefined) server.keepAliveTimeout = keepAliveTimeout;
server.on("error", (error) => {
  console.error(`The server could not listen on port ${port}: ${error.message}`);
  process.exit(1);
});
// Listening before Next prepares, as `next start` does: with port 0 only then is the port the OS
// picked known, and the app's code that runs while Next prepares (its config, instrumentation.ts:
// the database lock's note naming this server, the notifier's links) reads PORT.
await new Promise<void>((listening) => server.listen(port, hostname, listening));
const address = server.address();
const listening = typeof address === "object" && address ? address.port : port;
process.env.PORT = String(listening);
// The port listened on, not 0: Next sends it on as x-forwarded-port and builds request URLs from it
// (given 0, it would take 3000).
const app = next({ dev: false, dir, hostname, port: listening });
let lane: ApiLane | null = null;
let refuseBeforeNext: RequestCheck = () => false;
try {
  await app.prepare(); // also runs instrumentation.ts: the database opens before the first request
  refuseBeforeNext = loadRefusalsBeforeNext(path.join(dir, ".next"));
  if (process.env.PLAYGROUND_API_LANE !== "off") lane = await loadApiLane(path.join(dir, ".next"));
} catch (error) {
  // Said plainly, without a stack: a missing build is the newcomer's case (`npm start` before `npm run build`).
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
const handleWithNext = app.getRequestHandler();

serve = (incoming, outgoing) => {
  if (refuseBeforeNext(incoming, outgoing)) return;
  if (lane?.(incoming, outgoing)) return;
  handleWithNext(incoming, outgoing).catch((error: unknown) => {
    console.error(`Failed to handle request for ${incoming.url}:`, error);
    if (!outgoing.headersSent) outgoing.writeHead(500).end("Internal Server Error");
  });
};
nextIsReady();
const shown = hostname && hostname !== "0.0.0.0" && hostname !== "::" ? hostname : "localhost";
console.info(
  `Tool Playground on http://${shown}:${listening}` +
    (lane ? " (the decision and the agent API on the API lane)" : " (every route through Next)"),
);

let stopping = false;
function stop(signal: "SIGINT" | "SIGTERM"): void {
  if (stopping) return; // a terminal's Ctrl-C reaches the process twice (its group, and npm)
  stopping = true;
  server.close(() => {
    app
      .close()
      .catch((error: unknown) => console.error(error))
      .finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  });
}
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
