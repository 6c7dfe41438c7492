import { type APIRequestContext, expect, test } from "@playwright/test";
import { getReport, loadScenario, startRunOverApi } from "../pages/api";
import { LINK_ALONE_RECIPIENT } from "../support/accounts";
import { analyzeWithAxe } from "../support/budget";

// The link alone (docs/notifications.md#the-link-alone): the e2e server's channel "e2e-link-alone"
// lets its links decide without a sign-in, for one person, Alo, whom this spec adds. Alo's Approve
// link, opened in a browser that has never signed in, confirms that one turn as Alo and gives that
// browser nothing else. Every wait is on an outcome: the mail in the sink, the run's status.

const CHANNEL = "e2e-link-alone";
const sinkUrl = () => `http://127.0.0.1:${process.env.E2E_SMTP_SINK_PORT}/messages`;
/** A generous bound for what the background sweep and a busy machine take; it ends on the outcome. */
const OUTCOME_TIMEOUT = 60_000;

async function ensureRecipient(request: APIRequestContext) {
  const users = (await (await request.get("/api/users")).json()) as Array<{ email: string }>;
  if (users.some((user) => user.email === LINK_ALONE_RECIPIENT.email)) return;
  const added = await request.post("/api/users", { data: LINK_ALONE_RECIPIENT });
  expect(added.status(), await added.text()).toBe(201);
}

/** The path of the Approve link in Alo's mail about the run (found by its name), once it arrived. */
async function approveLinkInMail(request: APIRequestContext, runName: string) {
  const pattern = new RegExp(
    `${runName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^\\n]*\\n(?: {2}[^\\n]*\\n)*? {2}Approve: (\\S+)`,
  );
  let link = "";
  await expect
    .poll(
      async () => {
        const messages = (await (await request.get(sinkUrl())).json()) as Array<{
          to: string[];
          text: string;
        }>;
        const mail = messages.find(
          (message) => message.to.includes(LINK_ALONE_RECIPIENT.email) && pattern.test(message.text),
        );
        link = mail?.text.match(pattern)?.[1] ?? "";
        return link;
      },
      { timeout: OUTCOME_TIMEOUT, message: `Alo's mail with an Approve link for “${runName}”` },
    )
    .toMatch(/\/decision-links\/[\w-]{43}$/);
  return new URL(link).pathname;
}

test("a link the operator lets decide alone confirms one turn in a signed-out browser, and opens nothing else", async ({
  browser,
  baseURL,
  page,
  request,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  await ensureRecipient(request);
  const name = `link alone ${Date.now()}`;
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name,
    decisions: [],
  });
  await expect
    .poll(async () => (await getReport(request, runId)).status, { timeout: OUTCOME_TIMEOUT })
    .toBe("WAITING_FOR_APPROVAL");
  const approveLink = await approveLinkInMail(request, name);

  // Forwarded to someone else who is signed in (the administrator): refused, the link alone or not.
  const forwarded = await page.goto(approveLink);
  expect(forwarded?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Not your link" })).toBeVisible();

  // A browser that has never signed in, at a phone's width.
  const stranger = await browser.newContext({
    baseURL,
    storageState: { cookies: [], origins: [] },
    viewport: { width: 390, height: 844 },
  });
  try {
    const alone = await stranger.newPage();
    const opened = await alone.goto(approveLink);
    expect(opened?.status()).toBe(200);
    await expect(alone).toHaveURL(new RegExp(`${approveLink}$`));
    await expect(alone.getByRole("heading", { level: 1 })).toHaveText(`Approve “${name}”?`);
    await expect(alone.getByTestId("link-alone")).toContainText(LINK_ALONE_RECIPIENT.name);
    await expect(alone.getByTestId("link-turn")).toContainText("write_file");
    expect((await analyzeWithAxe(alone)).violations.map((violation) => violation.id)).toEqual([]);
    // Opening decided nothing: only the confirm button's POST does.
    expect((await getReport(request, runId)).status).toBe("WAITING_FOR_APPROVAL");

    await alone.getByRole("button", { name: "Approve this turn" }).click();
    await expect(alone.getByRole("heading", { level: 1 })).toHaveText("Approved");
    await expect
      .poll(async () => (await getReport(request, runId)).status, { timeout: OUTCOME_TIMEOUT })
      .toBe("COMPLETED");

    // It signed no one in: the inbox asks to sign in, and the API answers nothing.
    expect((await stranger.cookies()).filter((cookie) => cookie.name.includes("session"))).toEqual([]);
    await alone.goto("/inbox");
    await expect(alone).toHaveURL(/\/sign-in\?next=%2Finbox$/);
    expect((await stranger.request.get("/api/runs")).status()).toBe(401);
    expect((await stranger.request.get(`/api/runs/${runId}`)).status()).toBe(401);

    // Used once: a second use is refused.
    const again = await alone.goto(approveLink);
    expect(again?.status()).toBe(410);
    await expect(alone.getByRole("heading", { level: 1 })).toHaveText("Link already used");
  } finally {
    await stranger.close();
  }

  // The audit names Alo, and says as data that the link alone decided, sent by the channel.
  const audit = await (await request.get(`/api/audit?run=${runId}`)).json();
  expect(audit.items).toMatchObject([
    { actorEmail: LINK_ALONE_RECIPIENT.email, outcome: "approved", via: "link_alone", viaChannel: CHANNEL },
  ]);
  await page.goto(`/audit?run=${runId}`);
  await expect(page.getByTestId("audit-via")).toHaveText(`decision link, not signed in from ${CHANNEL}`);
});
