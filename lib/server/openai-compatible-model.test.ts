import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runScenarioHeadless } from "./run-scenario-headless";
import { buildScenario, openScenarioHarness, type ScenarioHarness } from "./testing/scenario-harness";

// A stand-in for any OpenAI-compatible endpoint on 127.0.0.1: it records each
// request and answers with the next queued reply.
interface Recorded {
  headers: IncomingMessage["headers"];
  body: {
    model: string;
    messages: Array<Record<string, unknown>>;
    tools: Array<{ type: string; function: { name: string } }>;
  };
}
let server: Server;
let baseURL: string;
const requests: Recorded[] = [];
const replies: Array<{ status: number; body: unknown }> = [];

let harness: ScenarioHarness;
beforeAll(async () => {
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      requests.push({ headers: request.headers, body: JSON.parse(text) });
      const reply = replies.shift() ?? { status: 500, body: { error: "no reply queued" } };
      response.writeHead(reply.status, { "content-type": "application/json" });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  harness = await openScenarioHarness();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await harness?.close();
  await new Promise((resolve) => server.close(resolve));
});

const toolCalls = (...calls: Array<[string, string, unknown]>) => ({
  status: 200,
  body: {
    choices: [
      {
        message: {
          content: null,
          tool_calls: calls.map(([id, name, args]) => ({
            id,
            type: "function",
            function: { name, arguments: JSON.stringify(args) },
          })),
        },
      },
    ],
  },
});

const promptScenario = (overrides: Record<string, unknown> = {}) =>
  buildScenario({
    name: "prompted",
    workspace: { "notes/todo.md": "- buy milk\n" },
    model: {
      kind: "openai-compatible",
      baseURL,
      model: "test-model",
      apiKeyEnv: "TEST_MODEL_KEY",
      system: "Be careful.",
      prompt: "Add a line to notes/todo.md.",
      ...overrides,
    },
    decisions: [{ approve: true, actor: "alice" }],
  });

describe("a run driven by an OpenAI-compatible endpoint", () => {
  it("sends the prompt, the tools and the key; feeds results back by call id; honours the barrier", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    requests.length = 0;
    replies.push(
      toolCalls(
        ["c_read", "read_file", { path: "notes/todo.md" }],
        ["c_write", "write_file", { path: "notes/todo.md", content: "- buy milk\n- water plants\n" }],
      ),
      toolCalls(["c_done", "finish", { summary: "added" }]),
    );
    const report = await runScenarioHeadless(harness.service, promptScenario());

    expect(report.status).toBe("COMPLETED");
    expect(report.steps[0]?.calls.map((call) => [call.name, call.status])).toEqual([
      ["read_file", "ok"],
      ["write_file", "ok"],
    ]);
    expect(report.decisions).toHaveLength(1);

    const [first, second] = requests;
    expect(first?.headers.authorization).toBe("Bearer sk-test");
    expect(first?.body.model).toBe("test-model");
    expect(first?.body.messages).toEqual([
      { role: "system", content: "Be careful." },
      { role: "user", content: "Add a line to notes/todo.md." },
    ]);
    expect(first?.body.tools.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(["read_file", "write_file", "finish"]),
    );
    // The second completion sees its own calls and one result per call id, in batch order.
    const tail = second?.body.messages.slice(2);
    expect(tail?.[0]).toMatchObject({ role: "assistant", tool_calls: [{ id: "c_read" }, { id: "c_write" }] });
    expect(tail?.slice(1).map((message) => [message.role, message.tool_call_id])).toEqual([
      ["tool", "c_read"],
      ["tool", "c_write"],
    ]);
    expect(String(tail?.[1]?.content)).toContain("buy milk");
  });

  it("fails the run with model_failed, naming the cause, when the endpoint refuses or cannot be used", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    replies.push({ status: 401, body: { error: { message: "bad key" } } });
    const refused = await runScenarioHeadless(harness.service, promptScenario());
    expect(refused).toMatchObject({ status: "FAILED", error: { code: "model_failed" } });
    expect(refused.error?.message).toMatch(/answered 401.*bad key/);

    vi.stubEnv("TEST_MODEL_KEY", "");
    const noKey = await runScenarioHeadless(harness.service, promptScenario());
    expect(noKey.error?.message).toMatch(/TEST_MODEL_KEY/);

    const unreachable = await runScenarioHeadless(
      harness.service,
      promptScenario({ baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: undefined }),
    );
    expect(unreachable).toMatchObject({ status: "FAILED", error: { code: "model_failed" } });
    expect(unreachable.error?.message).toMatch(
      /Could not reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/,
    );
  });
});
