import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertDecisionLinks } from "@/db/repositories/decision-links";
import { mintDecisionLinks } from "@/lib/server/notifications/decision-links";
import type { RunService } from "@/lib/server/runs/run-service";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import { buildScenario } from "@/lib/server/testing/scenario-harness";

const setup = setUpRouteTests(["approver", "admin"]);
let route: typeof import("./route");
let service: RunService;
let runId: string;
let tokens: Record<"approve" | "deny" | "open", string>;

beforeAll(async () => {
  route = await import("./route");
  service = await setup.runService();
  const started = await service.startRun(buildScenario(gatedWriteScenario("link route")));
  expect(await started.settled).toBe("WAITING_FOR_APPROVAL");
  runId = started.runId;
  const turnDigest = (await service.getReport(runId))?.pending?.turnDigest ?? "";
  const { urls, records } = mintDecisionLinks({
    userId: setup.accounts.approver.userId,
    runId,
    turnDigest,
    channel: "mail",
    waitExpiresAt: null,
    ttlMinutes: 60,
    now: new Date(),
    appUrl: "http://localhost",
  });
  await insertDecisionLinks(setup.handle.db, records);
  tokens = {
    approve: urls.approve.split("/").at(-1) ?? "",
    deny: urls.deny.split("/").at(-1) ?? "",
    open: urls.open.split("/").at(-1) ?? "",
  };
});

const call = (method: "GET" | "POST", token: string, headers: Record<string, string> = {}) => {
  const request = new Request(`http://localhost/decision-links/${token}`, { method, headers });
  return route[method](request, { params: Promise.resolve({ token }) });
};

describe("/decision-links/[token]", () => {
  it("sends a signed-out browser to sign-in and back, as the proxy sends a stranger from any page", async () => {
    const response = await call("GET", tokens.approve, { accept: "text/html" });
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(
      `/sign-in?next=${encodeURIComponent(`/decision-links/${tokens.approve}`)}`,
    );
    expect((await service.getReport(runId))?.pending).not.toBeNull();
  });

  it("asks a stranger to sign in, and decides nothing", async () => {
    const response = await call("GET", tokens.approve);
    expect(response.status).toBe(401);
    expect(await response.text()).toContain(
      `/sign-in?next=${encodeURIComponent(`/decision-links/${tokens.approve}`)}`,
    );
    expect((await call("POST", tokens.approve)).status).toBe(401);
    expect((await service.getReport(runId))?.pending).not.toBeNull();
  });

  it("shows its person the turn and a confirm button, and deciding needs the POST", async () => {
    const response = await call("GET", tokens.approve, setup.accounts.approver.headers);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("write_file");
    expect(page).toContain('<form method="post">');
    expect(page).not.toContain("<script");
    expect((await service.getReport(runId))?.pending).not.toBeNull();
  });

  it("refuses someone else, and a POST from another site", async () => {
    expect((await call("GET", tokens.approve, setup.accounts.admin.headers)).status).toBe(403);
    expect((await call("POST", tokens.approve, setup.accounts.admin.headers)).status).toBe(403);
    const crossSite = await call("POST", tokens.approve, {
      ...setup.accounts.approver.headers,
      origin: "https://elsewhere.example",
    });
    expect(crossSite.status).toBe(403);
    expect((await service.getReport(runId))?.pending).not.toBeNull();
  });

  it("lets a browser send the confirm page's origin with its POST, which a null origin would not pass", async () => {
    // Under "no-referrer" a browser sends `Origin: null` with the form's POST, and that is refused as
    // from another site: the confirm button never worked (e2e/checks/43-decision-links.spec.ts).
    const shown = await call("GET", tokens.approve, setup.accounts.approver.headers);
    expect(shown.headers.get("referrer-policy")).toBe("same-origin");
    const nullOrigin = await call("POST", tokens.approve, {
      ...setup.accounts.approver.headers,
      origin: "null",
    });
    expect(nullOrigin.status).toBe(403);
    expect((await service.getReport(runId))?.pending).not.toBeNull();
  });

  it("confirming decides once, as the person, then the link is spent", async () => {
    // As the confirm page's form sends it from a browser.
    const response = await call("POST", tokens.approve, {
      ...setup.accounts.approver.headers,
      host: "localhost",
      origin: "http://localhost",
      "sec-fetch-site": "same-origin",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/runs/${runId}`);
    const report = await service.getReport(runId);
    expect(report?.decisions[0]).toMatchObject({
      approve: true,
      actor: setup.accounts.approver.name,
      actorId: setup.accounts.approver.userId,
      reason: 'Approved through a decision link sent by the channel "mail"',
    });
    expect((await call("POST", tokens.approve, setup.accounts.approver.headers)).status).toBe(410);
    // The deny link of the same turn: the turn is no longer the one waiting.
    expect((await call("POST", tokens.deny, setup.accounts.approver.headers)).status).toBe(409);
  });

  it("answers 404 for a token that is not a link", async () => {
    expect((await call("GET", "not-a-token", setup.accounts.approver.headers)).status).toBe(404);
  });
});

describe("/decision-links/[token] where the operator lets the link alone decide", () => {
  const configured = process.env.PLAYGROUND_NOTIFICATIONS;
  let aloneRunId: string;
  let alone: Record<"approve" | "deny" | "open", string>;

  beforeAll(async () => {
    // As the operator configures it: the channel "alone" lets its links decide; "mail" does not.
    process.env.PLAYGROUND_NOTIFICATIONS = JSON.stringify({
      alone: {
        kind: "email",
        from: "Playground <playground@example.com>",
        smtp: { host: "127.0.0.1" },
        to: { roles: ["approver"] },
        linkAlone: true,
      },
    });
    const started = await service.startRun(buildScenario(gatedWriteScenario("link alone route")));
    expect(await started.settled).toBe("WAITING_FOR_APPROVAL");
    aloneRunId = started.runId;
    const { urls, records } = mintDecisionLinks({
      userId: setup.accounts.approver.userId,
      runId: aloneRunId,
      turnDigest: (await service.getReport(aloneRunId))?.pending?.turnDigest ?? "",
      channel: "alone",
      waitExpiresAt: null,
      ttlMinutes: 60,
      now: new Date(),
      appUrl: "http://localhost",
    });
    await insertDecisionLinks(setup.handle.db, records);
    const token = (url: string) => url.split("/").at(-1) ?? "";
    alone = { approve: token(urls.approve), deny: token(urls.deny), open: token(urls.open) };
  });
  afterAll(() => {
    if (configured === undefined) delete process.env.PLAYGROUND_NOTIFICATIONS;
    else process.env.PLAYGROUND_NOTIFICATIONS = configured;
  });

  it("shows a signed-out browser the confirm page, decides on its POST as the link's person, and signs no one in", async () => {
    const shown = await call("GET", alone.approve, { accept: "text/html" });
    expect(shown.status).toBe(200);
    const page = await shown.text();
    expect(page).toContain('data-testid="link-alone"');
    expect(page).toContain('<form method="post">');
    expect((await service.getReport(aloneRunId))?.pending).not.toBeNull();

    const confirmed = await call("POST", alone.approve, {
      host: "localhost",
      origin: "http://localhost",
      "sec-fetch-site": "same-origin",
    });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('data-testid="link-decided"');
    // No session: the link decided this one turn and gave nothing else.
    expect(confirmed.headers.get("set-cookie")).toBeNull();
    expect((await service.getReport(aloneRunId))?.decisions[0]).toMatchObject({
      approve: true,
      actorId: setup.accounts.approver.userId,
    });
    expect((await call("POST", alone.approve)).status).toBe(410);
  });

  it("still refuses a link forwarded to someone else signed in, and a POST from another site", async () => {
    expect((await call("GET", alone.deny, setup.accounts.admin.headers)).status).toBe(403);
    expect((await call("POST", alone.deny, { origin: "https://elsewhere.example" })).status).toBe(403);
  });

  it("a link of a channel that does not allow it still asks to sign in", async () => {
    expect((await call("GET", tokens.open, { accept: "text/html" })).status).toBe(307);
  });
});
