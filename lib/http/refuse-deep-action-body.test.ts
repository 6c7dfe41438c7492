import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "@/lib/runtime";
import { MAX_ACTION_BODY_DEPTH, refuseDeepActionBody } from "./refuse-deep-action-body";

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
/** A server action call as a browser posts it: its arguments as text, or (with a form) as multipart fields. */
const actionCall = (body: string | FormData) =>
  new Request("http://test/inbox", {
    method: "POST",
    headers: {
      "next-action": "0123abcd",
      ...(typeof body === "string" ? { "content-type": "text/plain;charset=UTF-8" } : {}),
    },
    body,
  });

describe("a server action's body, before React decodes it", () => {
  it("is refused with the one 400 body when it nests 100,000 deep, as text or as a form field", async () => {
    const deep = `[${nested(100_000)}]`;
    const form = new FormData();
    form.set("0", deep);
    for (const request of [actionCall(deep), actionCall(form)]) {
      const response = await refuseDeepActionBody(request);
      expect(response?.status).toBe(400);
      expect(await response?.json()).toEqual({
        error: {
          code: "invalid_request",
          message: `Invalid request: (body): nests deeper than ${MAX_JSON_DEPTH} levels`,
          issues: [{ path: "", message: `nests deeper than ${MAX_JSON_DEPTH} levels` }],
        },
        pending: null,
      });
    }
  });

  it("passes everything the action's own checks should answer, and every other request", async () => {
    // Deeper than the arguments may be, but not deep enough to harm the decoder: the action names the field.
    expect(await refuseDeepActionBody(actionCall(`[${nested(MAX_ACTION_BODY_DEPTH - 1)}]`))).toBeNull();
    expect(
      await refuseDeepActionBody(actionCall(JSON.stringify([{ scenarioText: "[".repeat(10_000) }]))),
    ).toBeNull();
    const page = new Request("http://test/inbox", { method: "POST", body: `[${nested(100_000)}]` });
    expect(await refuseDeepActionBody(page)).toBeNull();
  });

  it("leaves the body for the action to read", async () => {
    const request = actionCall('[{"runId":"x"}]');
    expect(await refuseDeepActionBody(request)).toBeNull();
    expect(await request.text()).toBe('[{"runId":"x"}]');
  });
});
