// A stand-in for an OpenAI-compatible endpoint, on 127.0.0.1, for demos and
// end-to-end tests without a network: POST /v1/chat/completions answers from
// a fixed script that does the prompt template's task (read notes/todo.md,
// write it back with a new line, which waits for approval, then finish), and
// reports token usage like a real endpoint. Which answer it gives depends only
// on how many times the model has answered in the conversation so far.
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

function answer(messages, tools = []) {
  if (tools.some((tool) => tool?.function?.name === "search_notes")) return answerAgent(messages);
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

const server = createServer((request, response) => {
  if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: "not found" } }));
    return;
  }
  let text = "";
  request.on("data", (chunk) => {
    text += chunk;
  });
  request.on("end", () => {
    const body = JSON.parse(text);
    const message = { role: "assistant", ...answer(body.messages ?? [], body.tools ?? []) };
    const promptTokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
    const completionTokens = Math.ceil(JSON.stringify(message).length / 4);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id: `fake-${Date.now()}`,
        object: "chat.completion",
        model: body.model,
        choices: [{ index: 0, message, finish_reason: "tool_calls" }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      }),
    );
  });
});
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`fake model endpoint on http://127.0.0.1:${server.address().port}/v1\n`);
});
