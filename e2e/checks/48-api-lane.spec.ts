import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { ASYNC_CONTEXT_FRAME_FLAG, lacksAsyncContextFrame } from "../../bin/async-context-frame";
import { startProductionServer } from "../support/production-server";

// docs/operations.md#the-api-lane: the production server answers the decision and the agent API
// itself, everything else through Next, and a client cannot tell them apart but by the time taken:
// the same refusals, the same headers next.config.mjs gives every API answer.
const API_HEADERS = [
  "content-security-policy",
  "x-content-type-options",
  "x-frame-options",
  "referrer-policy",
];
const RUN = "00000000-0000-4000-8000-000000000000";

async function strangersAnswers(baseURL: string) {
  const onLane = await fetch(`${baseURL}/api/runs/${RUN}/decision`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ verdict: "approve" }),
  });
  const throughNext = await fetch(`${baseURL}/api/inbox`);
  return { onLane, throughNext };
}

test("the production server answers the decision on its lane with the API's refusals and headers", async () => {
  const server = await startProductionServer({ freshDatabase: true });
  try {
    await expect.poll(() => server.output()).toContain("(the decision and the agent API on the API lane)");
    const { onLane, throughNext } = await strangersAnswers(server.baseURL);
    expect(onLane.status).toBe(401);
    expect(((await onLane.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
    expect(throughNext.status).toBe(401);
    for (const name of API_HEADERS) {
      expect(onLane.headers.get(name), name).toBeTruthy();
      expect(onLane.headers.get(name), name).toBe(throughNext.headers.get(name));
    }
    // A method the route does not export is still Next's to answer.
    expect((await fetch(`${server.baseURL}/api/runs/${RUN}/decision`)).status).toBe(405);
    // docs/operations.md#asynclocalstorage-without-promise-hooks: on Node 22 the process that was
    // started is the one serving, now with AsyncLocalStorage's frame on its command line.
    const commandLine = readFileSync(`/proc/${server.pid}/cmdline`, "utf8").split("\0");
    expect(commandLine.some((part) => part.endsWith("bin/start-server.ts"))).toBe(true);
    expect(commandLine.includes(ASYNC_CONTEXT_FRAME_FLAG)).toBe(
      lacksAsyncContextFrame(process.versions.node, [], ""),
    );
  } finally {
    await server.stop();
  }
});

test("PLAYGROUND_API_LANE=off serves every route through Next, the same way", async () => {
  const server = await startProductionServer({ freshDatabase: true, env: { PLAYGROUND_API_LANE: "off" } });
  try {
    await expect.poll(() => server.output()).toContain("(every route through Next)");
    const { onLane } = await strangersAnswers(server.baseURL);
    expect(onLane.status).toBe(401);
    expect(onLane.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
  } finally {
    await server.stop();
  }
});
