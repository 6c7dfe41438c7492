// A stand-in for an OpenAI-compatible endpoint, on 127.0.0.1, for demos and
// end-to-end tests without a network: POST /v1/chat/completions answers from
// a fixed script that does the prompt template's task (read notes/todo.md,
// write it back with a new line, which waits for approval, then finish), and
// reports token usage like a real endpoint. Which answer it gives depends only
// on how many times the model has answered in the conversation so far.
//
// Asked with `stream: true`, it streams the same answer as a real endpoint
// does (server-sent chunks of deltas: the text a word at a time, each tool
// call's arguments in fragments, usage last, then [DONE]). A test can hold a
// stream mid-way with a gate, so it waits on what a page shows, not on time:
//   POST /gates {"match": "<text in the conversation>", "afterChunks": 2} -> {"id"}
//     the next stream whose request contains `match` stops after that many
//     text chunks (once; the gate is then spent)
//   GET  /gates/<id>          -> {"held": true|false, "released": ...}
//   POST /gates/<id>/release  -> the held stream goes on to the end
//   POST /gates/<id>/break    -> the held stream's connection is cut (a broken stream)
// Usage: node e2e/support/fake-model-server.mjs <port>
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? process.env.FAKE_MODEL_PORT ?? 0);

function call(id, name, args) {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

/**
 * The script for an agent outside the playground (examples/python/agent.py,
 * docs/agent-api.md), recognised by its declared tools: two searches and a
 * note that waits for approval, then finish with what the note said.
 */
function answerAgent(messages) {
  const answered = messages.filter((message) => message.role === "assistant").length;
  if (answered === 0) {
    return {
      content: "Searching my notes, then telling the team.",
      tool_calls: [
        call("c_milk", "search_notes", { query: "milk" }),
        call("c_plants", "search_notes", { query: "plants" }),
        call("c_send", "send_note", { to: "team", text: "shopping: milk" }),
      ],
    };
  }
  const sent = messages.find((message) => message.role === "tool" && message.tool_call_id === "c_send");
  return {
    content: "Done.",
    tool_calls: [call("c_finish", "finish", { summary: `note: ${sent ? String(sent.content) : "none"}` })],
  };
}

/** A tool message's text, whether the client sent a string or text parts. */
function textOf(message) {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? []).map((part) => part.text ?? "").join("");
}

/**
 * The script for the framework examples (examples/ai-sdk, langgraph,
 * openai-agents; docs/agents.md), recognised by their declared tools: three
 * reads in one response (one wave), then a write of what they said, which
 * waits for approval, then a final answer without tool calls.
 */
function answerFilesAgent(messages) {
  const answered = messages.filter((message) => message.role === "assistant").length;
  if (answered === 0) {
    return {
      content: "Reading the three notes at once.",
      tool_calls: ["a.md", "b.md", "c.md"].map((path) =>
        call(`c_read_${path[0]}`, "read_local_file", { path }),
      ),
    };
  }
  if (answered === 1) {
    const read = ["a", "b", "c"].map((name) => {
      const message = messages.find(
        (candidate) => candidate.role === "tool" && candidate.tool_call_id === `c_read_${name}`,
      );
      return message ? textOf(message).trim() : "(missing)";
    });
    return {
      content: "Writing the summary.",
      tool_calls: [
        call("c_write", "write_local_file", { path: "summary.md", content: `${read.join("\n")}\n` }),
      ],
    };
  }
  const written = messages.find((message) => message.role === "tool" && message.tool_call_id === "c_write");
  return { content: `Done: ${written ? textOf(written) : "nothing written"}`, tool_calls: undefined };
}

function answer(messages, tools = []) {
  if (tools.some((tool) => tool?.function?.name === "search_notes")) return answerAgent(messages);
  if (tools.some((tool) => (tool?.function?.name ?? tool?.name) === "read_local_file"))
    return answerFilesAgent(messages);
  const answered = messages.filter((message) => message.role === "assistant").length;
  const todo = messages.find(
    (message) => message.role === "tool" && String(message.content).includes("buy milk"),
  );
  switch (answered) {
    case 0:
      return {
        content: "Let me read the notes first.",
        tool_calls: [call("c_read", "read_file", { path: "notes/todo.md" })],
      };
    case 1: {
      const current = todo ? (JSON.parse(String(todo.content)).content ?? "") : "";
      return {
        content: "Adding the line.",
        tool_calls: [
          call("c_write", "write_file", { path: "notes/todo.md", content: `${current}- water plants\n` }),
        ],
      };
    }
    default:
      return {
        content: "Done.",
        tool_calls: [call("c_finish", "finish", { summary: "added '- water plants'" })],
      };
  }
}

/** Gates by id: what a test holds a stream with. */
const gates = new Map();
let nextGate = 1;

function readBody(request) {
  return new Promise((resolve) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => resolve(text));
  });
}

function sendJson(response, status, body) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

async function handleGates(request, response) {
  const [, , id, action] = new URL(request.url, "http://fake").pathname.split("/");
  if (request.method === "POST" && !id) {
    const body = JSON.parse((await readBody(request)) || "{}");
    if (typeof body.match !== "string" || body.match === "") {
      sendJson(response, 400, { error: { message: "a gate needs `match`, a non-empty string" } });
      return;
    }
    const gate = {
      id: String(nextGate++),
      match: body.match,
      afterChunks: Number.isInteger(body.afterChunks) ? body.afterChunks : 2,
      held: false,
      released: false,
      isSpent: false,
      wake: null,
    };
    gates.set(gate.id, gate);
    sendJson(response, 201, { id: gate.id });
    return;
  }
  const gate = gates.get(id ?? "");
  if (!gate) {
    sendJson(response, 404, { error: { message: `no gate ${id}` } });
    return;
  }
  if (request.method === "GET" && !action) {
    sendJson(response, 200, { held: gate.held, released: gate.released });
    return;
  }
  if (request.method === "POST" && (action === "release" || action === "break")) {
    gate.released = true;
    gate.wake?.(action);
    gate.wake = null;
    sendJson(response, 200, { released: true });
    return;
  }
  sendJson(response, 404, { error: { message: "not found" } });
}

/** The answer's text a word at a time, as a model generates it. */
function splitText(text) {
  return text.match(/\S+\s*/g) ?? [];
}

/** A call's arguments in fragments of at most 8 characters, as a model generates them. */
function splitArguments(text) {
  const parts = [];
  for (let index = 0; index < text.length; index += 8) parts.push(text.slice(index, index + 8));
  return parts.length > 0 ? parts : [""];
}

/**
 * Streams `message` as chat completion chunks. A gate whose `match` is in the
 * request holds the stream after its `afterChunks` text chunks until the test
 * releases it (or breaks it: the connection is cut there).
 */
async function streamAnswer(response, message, usage, model, requestText) {
  const gate = [...gates.values()].find(
    (candidate) => !candidate.isSpent && requestText.includes(candidate.match),
  );
  if (gate) gate.isSpent = true;
  const id = `fake-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta, finish = null, extra = {}) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    })}\n\n`;
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.write(chunk({ role: "assistant", content: "" }));
  const pieces = splitText(message.content ?? "");
  for (const [index, piece] of pieces.entries()) {
    if (gate && index === gate.afterChunks) {
      gate.held = true;
      const action = gate.released ? "release" : await new Promise((resolve) => (gate.wake = resolve));
      gate.held = false;
      if (action === "break") {
        response.destroy();
        return;
      }
    }
    response.write(chunk({ content: piece }));
  }
  for (const [index, toolCall] of (message.tool_calls ?? []).entries()) {
    for (const [fragment, text] of splitArguments(toolCall.function.arguments).entries()) {
      response.write(
        chunk({
          tool_calls: [
            fragment === 0
              ? {
                  index,
                  id: toolCall.id,
                  type: "function",
                  function: { name: toolCall.function.name, arguments: text },
                }
              : { index, function: { arguments: text } },
          ],
        }),
      );
    }
  }
  response.write(chunk({}, message.tool_calls ? "tool_calls" : "stop"));
  response.write(
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
  );
  response.end("data: [DONE]\n\n");
}

const server = createServer(async (request, response) => {
  if (request.url?.startsWith("/gates")) {
    await handleGates(request, response);
    return;
  }
  if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
    sendJson(response, 404, { error: { message: "not found" } });
    return;
  }
  const text = await readBody(request);
  const body = JSON.parse(text);
  const message = { role: "assistant", ...answer(body.messages ?? [], body.tools ?? []) };
  if (!message.tool_calls) delete message.tool_calls;
  const promptTokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completionTokens = Math.ceil(JSON.stringify(message).length / 4);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (body.stream === true) {
    await streamAnswer(response, message, usage, body.model, text);
    return;
  }
  sendJson(response, 200, {
    id: `fake-${Date.now()}`,
    object: "chat.completion",
    model: body.model,
    choices: [{ index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
    usage,
  });
});
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`fake model endpoint on http://127.0.0.1:${server.address().port}/v1\n`);
});
