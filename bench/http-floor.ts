// The machine's own floor under every HTTP figure (docs/performance.md#the-http-anchor): round trips
// from the bench's client to a bare Node HTTP server in a process of its own, which reads nothing,
// checks nothing and answers `{"ok":true}`. What the app's HTTP figures add above it is the app's;
// its p99 is what two processes waiting for a core cost on this machine at this hour.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { SERVER_NODE_FLAGS } from "@/lib/server/testing/production-start";
import { request } from "./http-client";
import { stopProcess } from "./production-instance";

/**
 * CommonJS, for `node -e`: listens on a free loopback port and prints it; exits when its stdin
 * closes, so it does not outlive a bench that was killed.
 */
const BARE_SERVER = `
const server = require("node:http").createServer((request, response) => {
  request.resume();
  request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'));
});
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
process.stdin.on("end", () => process.exit(0)).resume();
`;

const WARM_UP = 200;

/** Milliseconds per round trip, `times` of them after {@link WARM_UP}; the server is stopped after. */
export async function bareHttpRoundTrips(times = 2_000): Promise<number[]> {
  // Started as the app's servers are (V8's helpers sized to the cores), so the two compare.
  const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, "-e", BARE_SERVER], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  try {
    const [firstLine] = (await Promise.race([
      once(server.stdout, "data"),
      // `once` rejects on the child's "error" (it could not start) as well.
      once(server, "exit").then(([code]) => {
        throw new Error(`the bare HTTP server exited before listening (code ${code})`);
      }),
    ])) as [Buffer];
    const url = `http://127.0.0.1:${Number.parseInt(String(firstLine), 10)}/`;
    const samples: number[] = [];
    for (let index = 0; index < WARM_UP + times; index += 1) {
      const started = performance.now();
      const answer = await request(url);
      if (answer.status !== 200) throw new Error(`the bare HTTP server answered ${answer.status}`);
      if (index >= WARM_UP) samples.push(performance.now() - started);
    }
    return samples;
  } finally {
    server.stdin.end();
    if (server.pid !== undefined) await stopProcess(server);
  }
}
