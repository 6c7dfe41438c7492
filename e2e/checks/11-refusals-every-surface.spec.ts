import { type APIRequestContext, expect, request as playwrightRequest, test } from "@playwright/test";
import { loadScenario } from "../pages/api";
import {
  type ProductionServer,
  serverActionId,
  signInOverApi,
  startProductionServer,
} from "../support/production-server";

/**
 * A refusal means the same on every surface whatever the server loaded first.
 * Next compiles pages, actions and route handlers into separate bundles; the
 * process-wide run service is built by whichever request comes first after
 * start-up. Each order gets a fresh production server, and every code of the
 * error table is checked through the HTTP API and through the server action.
 */

type Surface = "http" | "action";
interface Refusal {
  status: number;
  code: string;
  pending: { turnDigest: string } | null;
}

const UNKNOWN_RUN = "00000000-0000-4000-8000-000000000000";
/** JSON nested 100,000 deep: what recursive decoders cannot survive. */
const deeplyNested = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
const WRONG_DIGEST = "0".repeat(64);

async function startWaitingRun(api: APIRequestContext): Promise<{ runId: string; turnDigest: string }> {
  const started = await api.post("/api/runs", { data: loadScenario("write-then-read-back.json") });
  expect(started.status()).toBe(201);
  const { runId } = (await started.json()) as { runId: string };
  let turnDigest = "";
  await expect
    .poll(async () => {
      const report = await (await api.get(`/api/runs/${runId}`)).json();
      turnDigest = report.pending?.turnDigest ?? "";
      return report.status;
    })
    .toBe("WAITING_FOR_APPROVAL");
  return { runId, turnDigest };
}

/** Sends a decision the way each surface does: the HTTP route, or the server action as a browser posts it. */
async function decide(
  api: APIRequestContext,
  server: ProductionServer,
  surface: Surface,
  runId: string,
  decision: Record<string, unknown>,
): Promise<Refusal | { ok: true }> {
  if (surface === "http") {
    const response = await api.post(`/api/runs/${runId}/decision`, { data: decision });
    if (response.ok()) return { ok: true };
    const body = await response.json();
    return { status: response.status(), code: body.error.code, pending: body.pending };
  }
  const response = await api.post("/inbox", {
    headers: {
      "next-action": serverActionId("decideTurnAction"),
      "content-type": "text/plain;charset=UTF-8",
      accept: "text/x-component",
      origin: server.baseURL,
    },
    data: JSON.stringify([{ runId, ...decision }]),
  });
  expect(response.status()).toBe(200);
  // The action's return value is one line of the RSC payload: `1:{"ok":…}`.
  const line = (await response.text()).split("\n").find((text) => text.includes('"ok":'));
  if (!line) throw new Error("the action answered without a result");
  const result = JSON.parse(line.slice(line.indexOf(":") + 1));
  if (result.ok) return { ok: true };
  return { status: result.error.status, code: result.error.code, pending: result.pending };
}

async function expectEveryCode(api: APIRequestContext, server: ProductionServer, surface: Surface) {
  const { runId, turnDigest } = await startWaitingRun(api);
  const approve = (digest: string) => ({ approve: true, turnDigest: digest });

  expect(await decide(api, server, surface, runId, { turnDigest })).toMatchObject({
    status: 400,
    code: "invalid_request",
  });
  expect(await decide(api, server, surface, UNKNOWN_RUN, approve(turnDigest))).toMatchObject({
    status: 404,
    code: "not_found",
  });
  expect(await decide(api, server, surface, runId, approve(WRONG_DIGEST))).toEqual({
    status: 409,
    code: "stale_turn",
    pending: expect.objectContaining({ turnDigest }),
  });

  const armed = await api.post("/api/faults", { data: { target: "approvals", failNext: 1 } });
  expect(armed.ok()).toBe(true);
  expect(await decide(api, server, surface, runId, approve(turnDigest))).toEqual({
    status: 503,
    code: "not_auditable",
    pending: expect.objectContaining({ turnDigest }),
  });

  expect(await decide(api, server, surface, runId, approve(turnDigest))).toEqual({ ok: true });
  expect(await decide(api, server, surface, runId, approve(turnDigest))).toMatchObject({
    status: 409,
    code: "not_waiting",
  });

  const unreadable = await startWaitingRun(api);
  await api.post("/api/faults/unreadable-state", { data: { runId: unreadable.runId } });
  expect(await decide(api, server, surface, unreadable.runId, approve(unreadable.turnDigest))).toMatchObject({
    status: 422,
    code: "unreadable_state",
  });
}

/** The boundary's own refusals: another site, too large a body, and (over HTTP) a body that is not JSON. */
async function expectBoundaryCodes(api: APIRequestContext, server: ProductionServer, surface: Surface) {
  const scenario = loadScenario("write-then-read-back.json");
  const tooLarge = JSON.stringify({ ...scenario, workspace: { "big.txt": "x".repeat(3 * 1024 * 1024) } });
  const status = async (response: { status(): number; json(): Promise<{ error: { code: string } }> }) => ({
    status: response.status(),
    code: (await response.json()).error.code,
  });
  if (surface === "http") {
    const post = (data: string, headers: Record<string, string>) =>
      api.post("/api/runs", { data, headers: { "content-type": "application/json", ...headers } });
    expect(
      await status(await post(JSON.stringify(scenario), { origin: "https://elsewhere.example" })),
    ).toEqual({
      status: 403,
      code: "forbidden",
    });
    expect(await status(await post(tooLarge, {}))).toEqual({ status: 413, code: "payload_too_large" });
    expect(await status(await post(JSON.stringify(scenario), { "content-type": "text/plain" }))).toEqual({
      status: 415,
      code: "unsupported_media_type",
    });
    expect(await status(await post(deeplyNested, {}))).toEqual({ status: 400, code: "invalid_request" });
    // better-auth's own routes parse their JSON too: a deep body is refused, never a 500.
    const signIn = await api.post("/api/auth/sign-in/email", {
      data: deeplyNested,
      headers: { "content-type": "application/json", origin: server.baseURL },
    });
    expect(signIn.status()).toBeGreaterThanOrEqual(400);
    expect(signIn.status()).toBeLessThan(500);
    return;
  }
  // React decodes an action's arguments recursively before the action runs: the proxy refuses first.
  const deepAction = await api.post("/inbox", {
    headers: {
      "next-action": serverActionId("decideTurnAction"),
      "content-type": "text/plain;charset=UTF-8",
      accept: "text/x-component",
      origin: server.baseURL,
    },
    data: `[${deeplyNested}]`,
  });
  expect(await status(deepAction)).toEqual({ status: 400, code: "invalid_request" });
  const startAction = async (scenarioText: string, origin: string | null) => {
    const response = await api.post("/", {
      headers: {
        "next-action": serverActionId("startRunAction"),
        "content-type": "text/plain;charset=UTF-8",
        accept: "text/x-component",
        ...(origin ? { origin } : {}),
      },
      data: JSON.stringify([{ scenarioText }]),
    });
    const line = (await response.text()).split("\n").find((text) => text.includes('"ok":'));
    const result = JSON.parse(line?.slice(line.indexOf(":") + 1) ?? "{}");
    return { status: result.error?.status, code: result.error?.code };
  };
  expect(await startAction(JSON.stringify(scenario), null)).toEqual({ status: 403, code: "forbidden" });
  expect(await startAction(tooLarge, server.baseURL)).toEqual({ status: 413, code: "payload_too_large" });
}

for (const firstRequest of ["page", "api"] as const) {
  test(`every refusal keeps its code and status on both surfaces when the ${firstRequest} loads first`, async () => {
    test.setTimeout(120_000);
    const server = await startProductionServer({ checksDatabase: true });
    const api = await playwrightRequest.newContext({ baseURL: server.baseURL });
    try {
      // Signing in loads neither the pages nor the API routes, so the order below is still the first.
      await signInOverApi(api, server.baseURL);
      if (firstRequest === "page") expect((await api.get("/")).status()).toBe(200);
      else expect((await api.get(`/api/runs/${UNKNOWN_RUN}`)).status()).toBe(404);
      await expectEveryCode(api, server, "http");
      await expectEveryCode(api, server, "action");
      await expectBoundaryCodes(api, server, "http");
      await expectBoundaryCodes(api, server, "action");
    } finally {
      await api.dispose();
      await server.stop();
    }
  });
}
