import { type Browser, expect, test } from "@playwright/test";
import { addUser } from "../pages/admin-page";
import { loadScenario } from "../pages/api";
import { RunPage } from "../pages/run-page";
import { allowFor } from "../support/budget";
import { serverActionId, startProductionServer } from "../support/production-server";

test("a fresh database asks for its first administrator once, then signs them in", async ({ browser }) => {
  const server = await startProductionServer({ freshDatabase: true, seedAdmin: false });
  const context = await browser.newContext({ baseURL: server.baseURL, storageState: undefined });
  try {
    const page = await context.newPage();
    await page.goto("/");
    await expect(page).toHaveURL(/\/setup$/);
    await page.getByRole("textbox", { name: "Your name" }).fill("Ada");
    await page.getByRole("textbox", { name: "Email" }).fill("ada@fresh.test");
    await page.getByLabel("Password (at least 8 characters)").fill("ada-password-1");
    await page.getByRole("button", { name: "Create the administrator" }).click();
    await expect(page.getByRole("heading", { name: "Playground" })).toBeVisible();
    await expect(page.getByRole("banner")).toContainText("Ada admin");
    // Once someone exists, setup is gone: it leads to sign-in (and on, since Ada is signed in).
    await page.goto("/setup");
    await expect(page.getByRole("heading", { name: "Playground" })).toBeVisible();
  } finally {
    await context.close();
    await server.stop();
  }
});

/** A browser of its own, signed in as this person through the sign-in page. */
async function signedIn(browser: Browser, baseURL: string, user: { email: string; password: string }) {
  allowFor("signIn");
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/inbox");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Finbox$/);
  await page.getByRole("textbox", { name: "Email" }).fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Signed in, they land where they were going.
  await expect(page.getByRole("heading", { name: "Inbox", level: 1 })).toBeVisible();
  return { context, page };
}

test("roles decide who may do what; the audit names who decided; the starter cannot approve their own run", async ({
  page,
  browser,
  baseURL,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const suffix = Date.now();
  const people = {
    viewer: { name: "Vic", email: `vic-${suffix}@e2e.test`, role: "viewer", password: "vic-password-1" },
    sam: { name: "Sam", email: `sam-${suffix}@e2e.test`, role: "approver", password: "sam-password-1" },
    ada: { name: "Ada", email: `ada-${suffix}@e2e.test`, role: "approver", password: "ada-password-1" },
  };
  for (const person of Object.values(people)) await addUser(page, person);

  const sam = await signedIn(browser, baseURL, people.sam);
  const ada = await signedIn(browser, baseURL, people.ada);
  const vic = await signedIn(browser, baseURL, people.viewer);
  try {
    // Sam starts a run whose policy asks for a second person.
    const started = await sam.page.request.post("/api/runs", {
      data: {
        ...loadScenario("write-then-read-back.json"),
        name: `two people ${suffix}`,
        policy: { requireDistinctApprover: true },
      },
    });
    expect(started.status()).toBe(201);
    const { runId } = await started.json();

    // The viewer sees the waiting run but no Approve; forging the action anyway is refused by the server.
    await vic.page.goto(`/runs/${runId}`);
    const vicRun = new RunPage(vic.page);
    await vicRun.expectStatus("Waiting for approval");
    await expect(vicRun.approvalPanel.getByRole("button", { name: /approve/i })).toHaveCount(0);
    const { pending } = await (await vic.page.request.get(`/api/runs/${runId}`)).json();
    const forged = await vic.page.request.post(`/runs/${runId}`, {
      headers: {
        "next-action": serverActionId("decideTurnAction"),
        "content-type": "text/plain;charset=UTF-8",
        accept: "text/x-component",
        origin: baseURL,
      },
      data: JSON.stringify([{ runId, approve: true, turnDigest: pending.turnDigest }]),
    });
    expect(await forged.text()).toContain('"code":"forbidden"');

    // Sam may not approve his own run; the panel says why.
    await sam.page.goto(`/runs/${runId}`);
    const samRun = new RunPage(sam.page);
    await samRun.approve();
    await expect(samRun.alert).toContainText("requires someone else to approve");
    await samRun.expectStatus("Waiting for approval");

    // Ada approves; the decision is recorded under her name.
    await ada.page.goto(`/runs/${runId}`);
    const adaRun = new RunPage(ada.page);
    await adaRun.approve();
    await adaRun.expectStatus("Completed");
    const report = await (await ada.page.request.get(`/api/runs/${runId}`)).json();
    expect(report.startedBy.name).toBe("Sam");
    expect(report.decisions).toMatchObject([{ approve: true, actor: "Ada", outcome: "executed" }]);
  } finally {
    await Promise.all([sam.context.close(), ada.context.close(), vic.context.close()]);
  }
});

test("signing out ends the session's open inbox stream, and it cannot reopen", async ({
  page,
  browser,
  baseURL,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const person = {
    name: "Owen",
    email: `owen-${Date.now()}@e2e.test`,
    role: "viewer",
    password: "owen-password-1",
  };
  await addUser(page, person);
  const owen = await signedIn(browser, baseURL, person);
  try {
    // What the inbox page holds open, watched directly: is the stream still open?
    await owen.page.evaluate(() => {
      const source = new EventSource("/api/inbox/events");
      (window as unknown as { inboxSource: EventSource }).inboxSource = source;
    });
    await expect
      .poll(() =>
        owen.page.evaluate(() => (window as unknown as { inboxSource: EventSource }).inboxSource.readyState),
      )
      .toBe(1);
    const second = await owen.context.newPage();
    await second.goto("/inbox");
    await second.getByRole("button", { name: "Sign out" }).click();
    await expect(second).toHaveURL(/\/sign-in/);
    // Closed by the server, and the browser's reconnect is refused (401), so it stays closed.
    await expect
      .poll(
        () =>
          owen.page.evaluate(
            () => (window as unknown as { inboxSource: EventSource }).inboxSource.readyState,
          ),
        {
          timeout: 20_000,
        },
      )
      .toBe(2);
  } finally {
    await owen.context.close();
  }
});
