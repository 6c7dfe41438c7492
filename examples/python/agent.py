#!/usr/bin/env python3
"""An agent outside the playground, in Python's standard library only.

Its model is any OpenAI-compatible endpoint; its tools run here, in this
process; the playground plans each turn's calls into waves and barriers,
sends the gated ones to a person's inbox, and tells this agent what it may
execute now (docs/agent-api.md). Nothing here is specific to Python.

    PLAYGROUND_TOKEN=tp_... python3 examples/python/agent.py \
        --server http://127.0.0.1:3000 --model-url http://127.0.0.1:4010/v1

It prints `run <id>` as soon as the run is open, then one line per step.
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request

NOTES = {
    "milk": ["buy milk on Friday", "oat milk for Sam"],
    "plants": ["water the plants on Monday"],
}

TOOLS = [
    {
        "name": "search_notes",
        "description": "Searches the notes for a word.",
        "resourceClass": "pure_read",
        "effect": "READ",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
    {
        "name": "send_note",
        "description": "Sends a note to someone. A person approves each one.",
        "resourceClass": "write",
        "effect": "NON_IDEMPOTENT_WRITE",
        "approval": "always",
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "string"}, "text": {"type": "string"}},
            "required": ["to", "text"],
        },
    },
]

FINISH = {
    "name": "finish",
    "description": "Finish with a summary. Must be the only call.",
    "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]},
}


class Refused(Exception):
    """The playground refused a request: its status and error body."""

    def __init__(self, status, body):
        super().__init__(f"{status}: {body.get('error', {}).get('message', body)}")
        self.status = status
        self.body = body


def request_json(url, body=None, token=None, timeout=90):
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {"content-type": "application/json"} if data is not None else {}
    if token:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        raise Refused(error.code, json.loads(error.read().decode("utf-8") or "{}")) from None


def execute(name, arguments, outbox):
    """Runs one released call here; returns (ok, result or error)."""
    args = json.loads(arguments)
    if name == "search_notes":
        return True, {"query": args["query"], "hits": NOTES.get(args["query"], [])}
    if name == "send_note":
        with open(outbox, "a", encoding="utf-8") as file:
            file.write(json.dumps({"to": args["to"], "text": args["text"]}) + "\n")
        return True, {"sent": True, "to": args["to"], "text": args["text"]}
    return False, {"code": "unknown_tool", "message": f"this agent has no tool {name}"}


def complete(model_url, model, messages):
    """One completion from an OpenAI-compatible endpoint: its text and tool calls, exactly as emitted."""
    tools = [{"type": "function", "function": {k: tool[k] for k in ("name", "description", "parameters")}}
             for tool in TOOLS + [FINISH]]
    answer = request_json(f"{model_url}/chat/completions", {"model": model, "messages": messages, "tools": tools})
    message = answer["choices"][0]["message"]
    calls = [
        {"id": call["id"], "name": call["function"]["name"], "arguments": call["function"]["arguments"]}
        for call in message.get("tool_calls") or []
    ]
    return message, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.environ.get("PLAYGROUND_URL", "http://127.0.0.1:3000"))
    parser.add_argument("--model-url", required=True, help="an OpenAI-compatible endpoint, up to /v1")
    parser.add_argument("--model", default="any")
    parser.add_argument("--outbox", default="outbox.jsonl", help="where send_note writes")
    parser.add_argument("--cap", type=int, default=8, help="at most this many calls at once")
    options = parser.parse_args()
    token = os.environ["PLAYGROUND_TOKEN"]
    api = f"{options.server.rstrip('/')}/api/agent/runs"

    opened = request_json(api, {
        "name": "notes agent (python)",
        "agent": {"name": "notes-agent", "version": "1.0", "traceId": os.environ.get("TRACE_ID", "local")},
        "tools": TOOLS,
        "limits": {"maxParallelToolCalls": options.cap},
    }, token)
    run_id = opened["runId"]
    print(f"run {run_id}", flush=True)
    runs = f"{api}/{run_id}"

    messages = [{"role": "user", "content": "Tell the team what to buy."}]
    state = opened["next"]
    while True:
        if state["next"] == "finished":
            print(f"finished {state['status']}", flush=True)
            return 0 if state["status"] == "COMPLETED" else 1
        if state["next"] == "submit_turn":
            if state["outcome"]:
                # The outcome, in call order, is the tool messages for the model.
                for call in state["outcome"]["calls"]:
                    content = call["result"] if call["status"] == "ok" else {
                        "status": call["status"], "error": call["error"], "reply": call["reply"]}
                    messages.append({"role": "tool", "tool_call_id": call["callId"], "content": json.dumps(content)})
            message, calls = complete(options.model_url, options.model, messages)
            messages.append({"role": "assistant", "content": message.get("content"),
                             "tool_calls": message.get("tool_calls")})
            turn = {"turn": state["turn"], "text": message.get("content"), "calls": calls}
            print(f"turn {state['turn']}: {', '.join(call['name'] for call in calls)}", flush=True)
            state = request_json(f"{runs}/turns", turn, token)
            continue
        if state["next"] == "execute":
            for release in state["releases"]:
                ok, outcome = execute(release["name"], release["arguments"], options.outbox)
                report = {"releaseToken": release["releaseToken"], "ok": ok}
                report["result" if ok else "error"] = outcome
                print(f"executed {release['name']} {release['arguments']}", flush=True)
                try:
                    request_json(f"{runs}/reports", report, token)
                except Refused as refused:
                    # Cancelled or lapsed meanwhile: the run says what happened next.
                    print(f"report refused: {refused}", flush=True)
        elif state.get("waitingFor") == "approval":
            print("waiting for approval", flush=True)
        # A long poll: answered at the next change of what this agent acts on (or after 25 s).
        state = request_json(f"{runs}/next?wait=25&after={state['version']}", token=token)


if __name__ == "__main__":
    sys.exit(main())
