// The per-call cost of an agent-driven turn (docs/agent-api.md): a turn of
// `calls` reads submitted, released, executed (nothing to do) and reported
// over HTTP on loopback, one request per report, long polls between waves.
// Auth is left out: it is the same per request on every route. The client is the edge bench's
// (bench/http-client.ts), not `fetch`, for the reason given there: it shares the server's thread.
import { createServer } from "node:http";
import type { RunService } from "@/lib/server/runs/run-service";
import type { AgentIdentity } from "../lib/runtime";
import { request } from "./http-client";

const AGENT: AgentIdentity = { tokenId: "bench", tokenName: "bench", ownerId: "bench", ownerName: "bench" };

/** Serves the protocol's four calls an agent makes in a turn, as JSON over HTTP. */
async function serveProtocol(service: RunService) {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const [, kind, runId = ""] = url.pathname.split("/");
    const agents = service.agents;
    const answer =
      kind === "turns"
        ? await agents.submitTurn(runId, AGENT, body, { waitMs: 10_000 })
        : kind === "reports"
          ? await agents.report(runId, AGENT, body)
          : await agents.next(runId, AGENT, {
              waitMs: 10_000,
              after: url.searchParams.get("after") ?? undefined,
            });
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Milliseconds per tool call of agent-driven turns of `calls` reads, one sample per repetition. */
export async function agentCallsOverHttp(service: RunService, calls: number, repetitions: number) {
  const { base, close } = await serveProtocol(service);
  const answerOf = async (path: string, body?: unknown) => {
    const sent = body === undefined ? {} : { method: "POST" as const, body: JSON.stringify(body) };
    const { status, text } = await request(`${base}${path}`, {
      ...sent,
      headers: { "content-type": "application/json" },
    });
    if (status !== 200) throw new Error(`${path}: ${status} ${text}`);
    return JSON.parse(text);
  };
  const samples: number[] = [];
  try {
    for (let repetition = 0; repetition < repetitions; repetition += 1) {
      const { runId } = await service.agents.openRun(
        {
          name: "bench: agent over HTTP",
          agent: { name: "bench" },
          limits: { maxParallelToolCalls: calls },
          tools: [
            {
              name: "lookup",
              description: "",
              resourceClass: "pure_read",
              effect: "READ",
              approval: "never",
              parameters: { type: "object" },
            },
          ],
        },
        AGENT,
      );
      const started = performance.now();
      let state = await answerOf(`/turns/${runId}`, {
        turn: 0,
        text: null,
        calls: Array.from({ length: calls }, (_, index) => ({
          id: `c${index}`,
          name: "lookup",
          arguments: `{"key":${index}}`,
        })),
      });
      while (state.next !== "submit_turn") {
        for (const release of state.releases ?? []) {
          await answerOf(`/reports/${runId}`, {
            releaseToken: release.releaseToken,
            ok: true,
            result: { ok: 1 },
          });
        }
        state = await answerOf(`/next/${runId}?after=${state.version}`);
      }
      samples.push((performance.now() - started) / calls);
      await service.startCancelRun(runId, "run");
    }
  } finally {
    await close();
  }
  return samples;
}
