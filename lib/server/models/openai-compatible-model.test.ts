import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { InvalidScenarioError, runScenarioHeadless, validateScenario } from "@/lib/runtime";
import { type ModelEndpoint, readModelEndpoints } from "@/lib/server/config/model-endpoints";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";

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
/** `hang`: never answer (until the test server closes), like a stuck model. */
/** `raw`: the body as it is, not JSON-encoded. */
/** `stall`: a stream's headers and its first chunk, then nothing, like a model stuck mid-answer. */
const replies: Array<
  { status: number; body: unknown; headers?: Record<string, string>; raw?: boolean } | "hang" | "stall"
> = [];

let harness: ScenarioHarness;

/** A port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
beforeAll(async () => {
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      requests.push({ headers: request.headers, body: JSON.parse(text) });
      const reply = replies.shift() ?? { status: 500, body: { error: "no reply queued" } };
      if (reply === "hang") return;
      if (reply === "stall") {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "Let me" } }] })}\n\n`);
        return;
      }
      response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      response.end(reply.raw ? String(reply.body) : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const endpoint = (overrides: Partial<ModelEndpoint> = {}): ModelEndpoint => ({
    baseURL,
    model: "test-model",
    apiKeyEnv: "TEST_MODEL_KEY",
    timeoutMs: 10_000,
    maxRetries: 0,
    stream: true,
    ...overrides,
  });
  harness = await openScenarioHarness({
    modelEndpoints: {
      problem: null,
      endpoints: new Map([
        ["fake", endpoint()],
        ["impatient", endpoint({ timeoutMs: 300 })],
        ["persistent", endpoint({ maxRetries: 2 })],
        ["keyless", endpoint({ apiKeyEnv: undefined })],
        ["down", endpoint({ baseURL: `http://127.0.0.1:${await closedPort()}/v1`, apiKeyEnv: undefined })],
      ]),
    },
  });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await harness?.close();
  server.closeAllConnections();
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
      endpoint: "fake",
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
      { role: "system", content: expect.stringMatching(/^You work through tools\.[\s\S]*\n\nBe careful\.$/) },
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

  it("fails the run with model_failed, naming the endpoint and never its URL or key", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test-secret");
    replies.push({ status: 401, body: { error: { message: "bad key\u0000 sk-test-secret?" } } });
    const refused = await runScenarioHeadless(harness.service, promptScenario());
    expect(refused).toMatchObject({ status: "FAILED", error: { code: "model_failed" } });
    expect(refused.error?.message).toBe(
      'The model endpoint "fake" answered 401 (its message is not shown: it repeats part of the key)',
    );
    expect(refused.error?.message).not.toContain("\u0000");

    // Whatever else an endpoint answers is not repeated into the run.
    replies.push({ status: 500, body: "<html>internal admin page</html>".repeat(50) });
    const opaque = await runScenarioHeadless(harness.service, promptScenario());
    expect(opaque.error?.message).toBe('The model endpoint "fake" answered 500');

    vi.stubEnv("TEST_MODEL_KEY", "");
    const noKey = await runScenarioHeadless(harness.service, promptScenario());
    expect(noKey.error?.message).toMatch(/"fake" has no key/);

    const unreachable = await runScenarioHeadless(harness.service, promptScenario({ endpoint: "down" }));
    expect(unreachable).toMatchObject({ status: "FAILED", error: { code: "model_failed" } });
    expect(unreachable.error?.message).toBe('Could not reach the model endpoint "down" (ECONNREFUSED).');

    for (const report of [refused, opaque, noKey, unreachable]) {
      const everything = JSON.stringify([report, await harness.events(report.runId)]);
      expect(everything).not.toContain("127.0.0.1");
      expect(everything).not.toContain("sk-test-secret");
    }
  });

  it("fails the run with model_failed when a 200 is not a usable chat completion, saying what is wrong", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    const callWith = (call: unknown) => ({
      status: 200,
      body: { choices: [{ message: { tool_calls: [call] } }] },
    });
    const cases: Array<[(typeof replies)[number], RegExp]> = [
      [
        { status: 200, body: "<html>maintenance</html>", raw: true },
        /answered with a body that is not JSON\.$/,
      ],
      [
        {
          status: 200,
          body: "<html>maintenance</html>",
          raw: true,
          headers: { "content-type": "text/html" },
        },
        /answered with a body that is not JSON\.$/,
      ],
      [{ status: 200, body: null }, /not a chat completion \(the body: must be an object\)/],
      [{ status: 200, body: { choices: [] } }, /not a chat completion \(choices: must not be empty\)/],
      [{ status: 200, body: { choices: "none" } }, /\(choices: must be a list/],
      [
        callWith({ id: "c1", type: "function" }),
        /\(choices\[0\]\.message\.tool_calls\[0\]: must be a function tool call\)/,
      ],
      [
        callWith({ id: "c1", type: "function", function: { name: "read_file", arguments: { path: "a" } } }),
        /tool_calls\[0\]: must be a function tool call/,
      ],
      [
        { status: 200, body: { choices: [{ message: { content: ["parts"] } }] } },
        /message\.content: must be text/,
      ],
    ];
    for (const [reply, message] of cases) {
      replies.push(reply);
      const report = await runScenarioHeadless(harness.service, promptScenario());
      expect(report).toMatchObject({ status: "FAILED", error: { code: "model_failed" } });
      expect(report.error?.message).toMatch(/^The model endpoint "fake" answered with /);
      expect(report.error?.message).toMatch(message);
      expect(report.error?.message).not.toContain("maintenance");
    }

    // What an endpoint adds or leaves out of its own accounting fails nothing.
    replies.push({
      status: 200,
      body: { ...toolCalls(["c_done", "finish", { summary: "done" }]).body, usage: { tokens: "many" } },
    });
    const tolerated = await runScenarioHeadless(harness.service, promptScenario());
    expect(tolerated).toMatchObject({ status: "COMPLETED", error: null });
  });

  it("never quotes an error that repeats the key, spaced out, cut short or in other case", async () => {
    const key = "sk-live-Q7f3kZ9pX2mW8vR4tY6u";
    vi.stubEnv("TEST_MODEL_KEY", key);
    const echoes = [
      `invalid key ${key.split("").join(" ")}`,
      `key ending ${key.slice(-10)} was revoked`,
      `key ${key.slice(0, 16)}... is not allowed`,
      `unknown key ${key.toUpperCase()}`,
      `bad key: ${key.replaceAll("-", "_")}`,
    ];
    for (const message of echoes) {
      replies.push({ status: 401, body: { error: { message } } });
      const report = await runScenarioHeadless(harness.service, promptScenario());
      expect(report).toMatchObject({ status: "FAILED", error: { code: "model_failed" } });
      expect(report.error?.message).toBe(
        'The model endpoint "fake" answered 401 (its message is not shown: it repeats part of the key)',
      );
    }
    // An error that repeats none of it is still quoted.
    replies.push({ status: 401, body: { error: { message: "the key was revoked yesterday" } } });
    const plain = await runScenarioHeadless(harness.service, promptScenario());
    expect(plain.error?.message).toBe(
      'The model endpoint "fake" answered 401: the key was revoked yesterday',
    );
  });

  it("retries a rate-limited or failing endpoint with backoff, then uses its answer", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    requests.length = 0;
    replies.push(
      { status: 429, body: { error: { message: "slow down" } }, headers: { "retry-after-ms": "10" } },
      { status: 503, body: { error: { message: "busy" } }, headers: { "retry-after-ms": "10" } },
      toolCalls(["c1", "finish", { summary: "done" }]),
    );
    const report = await runScenarioHeadless(harness.service, promptScenario({ endpoint: "persistent" }));
    expect(report.status).toBe("COMPLETED");
    expect(requests).toHaveLength(3);
  });

  it("keeps raw arguments exactly as sent, malformed ones included, and records what each completion cost", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    replies.push(
      {
        status: 200,
        body: {
          choices: [
            {
              message: {
                content: "reading",
                tool_calls: [
                  { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path": ' } },
                ],
              },
            },
          ],
          usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 },
        },
      },
      {
        status: 200,
        body: {
          choices: [
            {
              message: {
                content: null,
                tool_calls: [
                  { id: "c2", type: "function", function: { name: "finish", arguments: '{"summary":"ok"}' } },
                ],
              },
            },
          ],
          usage: { prompt_tokens: 200, completion_tokens: 5, total_tokens: 205 },
        },
      },
    );
    const report = await runScenarioHeadless(harness.service, promptScenario());
    expect(report.steps[0]?.calls[0]).toMatchObject({ arguments: '{"path": ', status: "not_dispatched" });
    expect(report.steps.map((step) => step.completion?.usage)).toEqual([
      { promptTokens: 120, completionTokens: 8, totalTokens: 128 },
      { promptTokens: 200, completionTokens: 5, totalTokens: 205 },
    ]);
    expect(report.steps.every((step) => (step.completion?.latencyMs ?? -1) >= 0)).toBe(true);
    expect(report.metrics).toMatchObject({
      completions: 2,
      tokens: { promptTokens: 320, completionTokens: 13, totalTokens: 333 },
    });
  });

  it("states the cap and the gates first, in a versioned preamble, then the scenario's own system prompt", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    requests.length = 0;
    replies.push(toolCalls(["c1", "finish", { summary: "done" }]));
    const report = await runScenarioHeadless(
      harness.service,
      buildScenario({
        name: "preamble",
        limits: { maxParallelToolCalls: 5 },
        model: { kind: "openai-compatible", endpoint: "keyless", system: "Be careful.", prompt: "Go." },
      }),
    );
    const [system] = requests[0]?.body.messages ?? [];
    expect(system?.role).toBe("system");
    const text = String(system?.content);
    expect(text).toContain("at most 5 tool calls");
    expect(text).toMatch(/need a person's approval before they run: .*write_file/);
    expect(text.endsWith("Be careful.")).toBe(true);
    // An endpoint without a key gets no Authorization header.
    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(report.steps[0]?.completion?.preamble).toMatchObject({ version: 2 });
    expect(text.startsWith(report.steps[0]?.completion?.preamble?.text ?? "?")).toBe(true);
  });

  it("gives up on a model that does not answer within the endpoint's timeout", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    replies.push("hang");
    const report = await runScenarioHeadless(harness.service, promptScenario({ endpoint: "impatient" }));
    expect(report).toMatchObject({ status: "FAILED", error: { code: "model_failed" } });
    expect(report.error?.message).toBe('The model endpoint "impatient" did not answer within 300 ms.');
  });

  it("gives up on a stream that stops mid-answer within the endpoint's timeout, whole answer included", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    replies.push("stall");
    const report = await runScenarioHeadless(harness.service, promptScenario({ endpoint: "impatient" }));
    expect(report.status).toBe("FAILED");
    expect(report.error?.message).toBe(
      'The model endpoint "impatient" did not finish its answer within 300 ms.',
    );
  });

  it.each([
    ["data: {not json\n\n", 'The model endpoint "fake" streamed a stream event that is not JSON.'],
    [
      `data: ${JSON.stringify({ choices: [{ delta: { tool_calls: [{ index: 7 }] } }] })}\n\n`,
      'The model endpoint "fake" streamed a stream chunk whose tool call 7 comes before call 0.',
    ],
    [
      `data: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`,
      'The model endpoint "fake" streamed an error in the stream.',
    ],
  ])(
    "fails the run with model_failed, by name and at once, when a stream is malformed: %j",
    async (body, message) => {
      vi.stubEnv("TEST_MODEL_KEY", "sk-test");
      requests.length = 0;
      replies.push({ status: 200, body, raw: true, headers: { "content-type": "text/event-stream" } });
      const report = await runScenarioHeadless(harness.service, promptScenario());
      expect(report.status).toBe("FAILED");
      expect(report.error).toMatchObject({ code: "model_failed", message });
      // Asked once, with stream: true: a malformed stream is not asked again.
      expect(requests).toHaveLength(1);
      expect(requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    },
  );

  it("asks without streaming when the endpoint refuses the stream's parameters, and stores that one completion", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    requests.length = 0;
    replies.push(
      { status: 400, body: { error: { message: "Unrecognized request argument: stream_options" } } },
      toolCalls(["c_done", "finish", { summary: "done" }]),
    );
    const report = await runScenarioHeadless(harness.service, promptScenario());
    expect(report.status).toBe("COMPLETED");
    expect(report.metrics.completions).toBe(1);
    expect(requests.map((request) => (request.body as { stream?: boolean }).stream)).toEqual([
      true,
      undefined,
    ]);
  });

  it("ends the run CANCELLED, not FAILED, when it is cancelled while the model is thinking", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    requests.length = 0;
    replies.push("hang");
    const { runId, settled } = await harness.service.startRun(promptScenario());
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    await harness.service.cancelRun(runId, "run");
    expect(await settled).toBe("CANCELLED");
    expect((await harness.service.getReport(runId))?.status).toBe("CANCELLED");
  });

  it("ends the run CANCELLED when the cancel arrives at another instance than the one driving it", async () => {
    vi.stubEnv("TEST_MODEL_KEY", "sk-test");
    requests.length = 0;
    replies.push("hang");
    const { runId, settled } = await harness.service.startRun(promptScenario());
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    // Another service on the same database stands in for another instance: it has no worker for this run.
    const otherInstance = harness.serviceWith();
    expect(await otherInstance.cancelRun(runId, "run")).toEqual({ status: "RUNNING" });
    expect(await settled).toBe("CANCELLED");
  });

  it("refuses a scenario naming an endpoint the operator did not configure, or carrying its own URL or key", async () => {
    await expect(harness.service.startRun(promptScenario({ endpoint: "elsewhere" }))).rejects.toSatisfy(
      (error) =>
        InvalidScenarioError.isInstance(error) &&
        error.issues[0]?.path === "model.endpoint" &&
        /"elsewhere".*configured: fake, impatient, persistent, keyless, down/.test(error.issues[0].message),
    );
    const own = validateScenario({
      name: "own endpoint",
      model: {
        kind: "openai-compatible",
        endpoint: "fake",
        prompt: "hi",
        baseURL: "http://169.254.169.254/v1",
        apiKeyEnv: "DATABASE_URL",
      },
    });
    expect(own.ok).toBe(false);
    if (!own.ok) {
      expect(own.issues.map((issue) => issue.path)).toEqual(["model.baseURL", "model.apiKeyEnv"]);
      expect(own.issues[0]?.message).toMatch(/configured by the server's operator/);
    }
  });
});

describe("the operator's model configuration", () => {
  it("reads named endpoints from PLAYGROUND_MODELS, and says what is wrong with a bad one", () => {
    const good = readModelEndpoints({
      PLAYGROUND_MODELS: JSON.stringify({
        local: { baseURL: "http://127.0.0.1:11434/v1", model: "llama3.1" },
      }),
    });
    expect(good.problem).toBeNull();
    expect(good.endpoints.get("local")).toEqual({
      baseURL: "http://127.0.0.1:11434/v1",
      model: "llama3.1",
      timeoutMs: 60_000,
      maxRetries: 2,
      stream: true,
    });
    expect(readModelEndpoints({}).endpoints.size).toBe(0);
    expect(readModelEndpoints({ PLAYGROUND_MODELS: "{" }).problem).toMatch(/not valid JSON/);
    expect(
      readModelEndpoints({
        PLAYGROUND_MODELS: JSON.stringify({ x: { baseURL: "file:///etc/passwd", model: "m" } }),
      }).problem,
    ).toMatch(/x\.baseURL: must be an http\(s\) URL/);
  });
});
