import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { getReport, loadScenario, startRunOverApi } from "../pages/api";
import { LINK_RECIPIENT } from "../support/accounts";
import { allowFor, analyzeWithAxe } from "../support/budget";

// E-mail end to end (docs/notifications.md#decision-links): the e2e server's channel "e2e-mail" sends
// to a local SMTP sink (e2e/support/smtp-sink.mjs, started by playwright.config.ts) for one person,
// Lin, whom this spec adds. A sweep sends every few seconds, so every wait here is on an outcome: the
// message in the sink, the run's status, the page's answer.

const CHANNEL = "e2e-mail";
const sinkUrl = () => `http://127.0.0.1:${process.env.E2E_SMTP_SINK_PORT}/messages`;
/** A generous bound for what the background sweep and a busy machine take; it ends on the outcome. */
const OUTCOME_TIMEOUT = 60_000;

interface SinkMessage {
  to: string[];
  text: string;
}

/** Adds Lin once (the server's database is the suite's: a second spec run finds them there). */
async function ensureRecipient(request: APIRequestContext) {
  const users = (await (await request.get("/api/users")).json()) as Array<{ email: string }>;
  if (users.some((user) => user.email === LINK_RECIPIENT.email)) return;
  const added = await request.post("/api/users", { data: LINK_RECIPIENT });
  expect(added.status(), await added.text()).toBe(201);
}

/** A browser of Lin's own, at a phone's width, signed in through the sign-in page. */
async function signedInRecipient(browser: Browser, baseURL: string) {
  allowFor("signIn");
  const context = await browser.newContext({
    baseURL,
    storageState: { cookies: [], origins: [] },
    viewport: { width: 390, height: 844 },
  });
  return { context, page: await context.newPage() };
}

async function signIn(page: Page) {
  await page.getByRole("textbox", { name: "Email" }).fill(LINK_RECIPIENT.email);
  await page.getByLabel("Password").fill(LINK_RECIPIENT.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** The run's waiting turn, once it waits. */
async function waitingTurn(request: APIRequestContext, runId: string) {
  await expect
    .poll(async () => (await getReport(request, runId)).status, { timeout: OUTCOME_TIMEOUT })
    .toBe("WAITING_FOR_APPROVAL");
  const { pending } = await getReport(request, runId);
  return pending as { turnDigest: string; calls: Array<{ name: string; arguments: string }> };
}

/**
 * The path of a decision link in Lin's mail about this turn, once the mail has arrived. The link
 * starts with the app's public URL (BETTER_AUTH_URL, unset here): its path is opened on this server.
 */
async function linkInMail(
  request: APIRequestContext,
  runName: string,
  digest: string,
  choice: "Approve" | "Deny",
) {
  // The text part: the item's line (the run's name, the digest's first characters), its calls, then
  // its links. The name matters: runs of one scenario wait at the same turn, so at the same digest.
  const pattern = new RegExp(
    `${runName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^\\n]*\\(turn ${digest.slice(0, 12)}[^\\n]*\\n(?: {2}[^\\n]*\\n)*? {2}${choice}: (\\S+)`,
  );
  let link = "";
  await expect
    .poll(
      async () => {
        const messages = (await (await request.get(sinkUrl())).json()) as SinkMessage[];
        const mail = messages.find(
          (message) => message.to.includes(LINK_RECIPIENT.email) && pattern.test(message.text),
        );
        link = mail?.text.match(pattern)?.[1] ?? "";
        return link;
      },
      {
        timeout: OUTCOME_TIMEOUT,
        message: `Lin's mail with a ${choice} link for turn ${digest.slice(0, 12)}`,
      },
    )
    .toMatch(/\/decision-links\/[\w-]{43}$/);
  return new URL(link).pathname;
}

async function expectNoHorizontalOverflow(page: Page) {
  const widths = await page.evaluate(() => ({
    content: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }));
  expect(widths.content).toBeLessThanOrEqual(widths.viewport);
}

test.beforeEach(async ({ request }) => {
  await ensureRecipient(request);
});

test("an e-mailed Approve link shows the turn, decides only when its person confirms, once, and is audited", async ({
  browser,
  baseURL,
  page,
  request,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const name = `decision link ${Date.now()}`;
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name,
    decisions: [],
  });
  const turn = await waitingTurn(request, runId);
  const approveLink = await linkInMail(request, name, turn.turnDigest, "Approve");

  const lin = await signedInRecipient(browser, baseURL);
  try {
    // Not signed in, the link leads to sign-in, and back to it.
    await lin.page.goto(approveLink);
    await expect(lin.page).toHaveURL(`/sign-in?next=${encodeURIComponent(approveLink)}`);
    await signIn(lin.page);

    // The confirm page: the turn as the inbox shows it, and a button. Opening it decided nothing.
    await expect(lin.page).toHaveURL(new RegExp(`${approveLink}$`));
    await expect(lin.page.getByRole("heading", { level: 1 })).toHaveText(`Approve “${name}”?`);
    const shown = lin.page.getByTestId("link-turn");
    await expect(shown.getByRole("listitem").filter({ hasText: "needs approval" })).toContainText(
      "write_file",
    );
    await expect(shown).toContainText("config/app.json");
    await expect(lin.page.getByTestId("link-digest")).toHaveText(turn.turnDigest.slice(0, 12));
    await expect(lin.page.getByText("Nothing is decided until you confirm.")).toBeVisible();
    expect((await getReport(request, runId)).status).toBe("WAITING_FOR_APPROVAL");
    await expectNoHorizontalOverflow(lin.page);
    const violations = (await analyzeWithAxe(lin.page)).violations.map((violation) => violation.id);
    expect(violations).toEqual([]);

    // Forwarded to someone else who is signed in (the administrator): refused, and nothing decided.
    const forwarded = await page.goto(approveLink);
    expect(forwarded?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Not your link" })).toBeVisible();
    const forwardedConfirm = await page.request.post(approveLink, { headers: { origin: baseURL } });
    expect(forwardedConfirm.status()).toBe(403);
    expect((await getReport(request, runId)).pending?.turnDigest).toBe(turn.turnDigest);

    // Lin confirms: the run page, and the run goes on to its end.
    await lin.page.getByRole("button", { name: "Approve this turn" }).click();
    await expect(lin.page).toHaveURL(new RegExp(`/runs/${runId}$`));
    await expect
      .poll(async () => (await getReport(request, runId)).status, { timeout: OUTCOME_TIMEOUT })
      .toBe("COMPLETED");

    // The audit names Lin and says the decision came through the channel's link.
    const audit = await (await request.get(`/api/audit?run=${runId}`)).json();
    expect(audit.items).toMatchObject([
      {
        runId,
        actor: LINK_RECIPIENT.name,
        actorEmail: LINK_RECIPIENT.email,
        reason: `Approved through a decision link sent by the channel "${CHANNEL}"`,
      },
    ]);
    await page.goto(`/audit?run=${runId}`);
    await expect(
      page.getByText(`Approved through a decision link sent by the channel "${CHANNEL}"`),
    ).toBeVisible();

    // The same link again: it has decided once, and says so.
    const again = await lin.page.goto(approveLink);
    expect(again?.status()).toBe(410);
    await expect(lin.page.getByRole("heading", { level: 1 })).toHaveText("Link already used");
    await expectNoHorizontalOverflow(lin.page);
  } finally {
    await lin.context.close();
  }
});

test("a link for a turn that changed since the mail decides nothing and shows the turn waiting now", async ({
  browser,
  baseURL,
  request,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const name = `changed turn ${Date.now()}`;
  const runId = await startRunOverApi(request, {
    ...loadScenario("two-gates-in-one-batch.json"),
    name,
    decisions: [],
  });
  const first = await waitingTurn(request, runId);
  const approveLink = await linkInMail(request, name, first.turnDigest, "Approve");

  // Someone else approves the first gate from the API: the run now waits at its second, a new turn.
  const decided = await request.post(`/api/runs/${runId}/decision?wait=settled`, {
    data: { approve: true, turnDigest: first.turnDigest },
  });
  expect(decided.status(), await decided.text()).toBe(200);
  const current = await waitingTurn(request, runId);
  expect(current.turnDigest).not.toBe(first.turnDigest);

  const lin = await signedInRecipient(browser, baseURL);
  try {
    await lin.page.goto("/sign-in");
    await signIn(lin.page);
    await expect(lin.page).not.toHaveURL(/\/sign-in/);

    const opened = await lin.page.goto(approveLink);
    expect(opened?.status()).toBe(409);
    await expect(lin.page.getByRole("heading", { level: 1 })).toHaveText("The turn changed");
    await expect(lin.page.getByTestId("link-turn")).toContainText("delete_file");
    await expect(lin.page.getByTestId("link-digest")).toHaveText(current.turnDigest.slice(0, 12));
    await expect(lin.page.getByRole("link", { name: "Open the run page" })).toHaveAttribute(
      "href",
      `/runs/${runId}`,
    );
    await expectNoHorizontalOverflow(lin.page);
    // The new turn still waits: the stale link decided nothing.
    expect((await getReport(request, runId)).pending?.turnDigest).toBe(current.turnDigest);
  } finally {
    await lin.context.close();
  }

  // Leave no waiting run for the specs after this one.
  const denied = await request.post(`/api/runs/${runId}/decision?wait=settled`, {
    data: { approve: false, turnDigest: current.turnDigest, reason: "e2e/43 is done with it" },
  });
  expect(denied.status(), await denied.text()).toBe(200);
});

test("a link whose wait expired is refused, and says so", async ({ browser, baseURL, request }) => {
  if (!baseURL) throw new Error("no baseURL");
  // The wait lasts 20 s (docs/decisions.md, expiry), then the deadline sweep ends it: the test waits
  // on that outcome, so it is given the wait and the sweeps on top of its base.
  test.setTimeout(test.info().timeout + 2 * OUTCOME_TIMEOUT);
  const name = `expired link ${Date.now()}`;
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name,
    approvalTimeoutSeconds: 20,
    decisions: [],
  });
  const turn = await waitingTurn(request, runId);
  const approveLink = await linkInMail(request, name, turn.turnDigest, "Approve");
  await expect
    .poll(async () => (await getReport(request, runId)).status, { timeout: OUTCOME_TIMEOUT })
    .not.toBe("WAITING_FOR_APPROVAL");

  const lin = await signedInRecipient(browser, baseURL);
  try {
    await lin.page.goto("/sign-in");
    await signIn(lin.page);
    await expect(lin.page).not.toHaveURL(/\/sign-in/);
    const opened = await lin.page.goto(approveLink);
    expect(opened?.status()).toBe(410);
    await expect(lin.page.getByRole("heading", { level: 1 })).toHaveText("Link expired");
    await expect(lin.page.getByRole("button", { name: "Approve this turn" })).toHaveCount(0);
  } finally {
    await lin.context.close();
  }
});
