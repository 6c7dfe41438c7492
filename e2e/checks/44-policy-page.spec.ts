import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { getReport, getView, startRunOverApi } from "../pages/api";
import { RunPage } from "../pages/run-page";
import { allowFor } from "../support/budget";
import { expectFitsAndPassesAxe } from "../support/layout";

// The policy page end to end (docs/policies.md#the-policy-page), on the suite's shared server: every
// rule here matches only paths under e2e44/ or e2e44-quorum/, which no other spec writes, so the
// policies this spec publishes decide nothing of theirs.

const OUTCOME_TIMEOUT = 30_000;

const BAD_POLICY = `rules:
  - name: e2e44-notes
    when: has(call.arguments.path) && call.arguments.path.startsWith("e2e44/")
    effect: allow
  - name: e2e44-typo
    when: call.tool == "write_file"
    effect: deny
    message: no
`;

const POLICY = `rules:
  - name: e2e44-notes
    when: has(call.arguments.path) && call.arguments.path.startsWith("e2e44/")
    effect: allow
  - name: e2e44-two-approvers
    when: has(call.arguments.path) && call.arguments.path.startsWith("e2e44-quorum/")
    effect: require
    quorum: 2
  - name: e2e44-one-approver
    when: has(call.arguments.path) && call.arguments.path.startsWith("e2e44-ruled/")
    effect: require
`;

/** A run that writes one file (gated by write_file's declaration unless a policy says otherwise), then finishes. */
function writeScenario(name: string, path: string) {
  return {
    name,
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "write_file", arguments: { path, content: "x" } }] },
        { calls: [{ name: "finish", arguments: { summary: "ok" } }] },
      ],
    },
  };
}

async function statusOf(request: APIRequestContext, runId: string) {
  return (await getView(request, runId)).status;
}

/** Approves the run's waiting turn over the API (the admin is an approver too), and waits for it to finish. */
async function approveOverApi(request: APIRequestContext, runId: string) {
  await expect
    .poll(() => statusOf(request, runId), { timeout: OUTCOME_TIMEOUT })
    .toBe("WAITING_FOR_APPROVAL");
  const { pending } = await getReport(request, runId);
  const decided = await request.post(`/api/runs/${runId}/decision`, {
    data: { approve: true, turnDigest: pending.turnDigest },
  });
  expect(decided.ok(), await decided.text()).toBe(true);
  await expect.poll(() => statusOf(request, runId), { timeout: OUTCOME_TIMEOUT }).toBe("COMPLETED");
}

/** Replaces the editor's text as typing would (CodeMirror reads the input events). */
async function typePolicy(page: Page, text: string) {
  const editor = page.locator("#policy-document");
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

test("an admin writes a policy, sees the checker's problem, backtests it, follows a difference, shadows it, then makes it live", async ({
  page,
  request,
}) => {
  // A recorded run the backtest replays: its write waited for a person.
  const recorded = await startRunOverApi(request, writeScenario("e2e44 recorded", "e2e44/notes.md"));
  await approveOverApi(request, recorded);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policy" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Approval policy" })).toBeVisible();

  // A rule naming a field that does not exist: the publish checker's problem, with its line.
  await typePolicy(page, BAD_POLICY);
  const problems = page.getByRole("list", { name: "Policy problems" });
  await expect(problems.getByRole("listitem")).toHaveText([
    /line 6\s+rules\[1\]\.when does not compile: No such key: tool/,
  ]);
  await typePolicy(page, POLICY);
  await expect(page.getByText("The policy checks: it can be backtested and published.")).toBeVisible();
  await expect(problems).toHaveCount(0);
  await expectFitsAndPassesAxe(page, "the policy page");

  // The backtest over the recorded run only: its write would no longer be asked about.
  await page.getByRole("textbox", { name: /Runs/ }).fill(recorded);
  await page.getByRole("textbox", { name: /Tool/ }).fill("write_file");
  await page.getByRole("button", { name: "Backtest", exact: true }).click();
  const totals = page.getByLabel("Backtest totals").getByRole("definition");
  await expect(page.getByLabel("Backtest totals")).toContainText("Approvals no longer asked1");
  await expect(totals).toHaveText(["1", "1", "0", "0", "0"]);
  const workload = page.getByRole("table", { name: "Approver workload per day" });
  await expect(workload.getByRole("row")).toHaveCount(2);
  await expect(workload.getByRole("row").nth(1).getByRole("cell")).toHaveText([/\d{4}-\d\d-\d\d/, "1", "0"]);
  const differences = page.getByRole("list", { name: "Backtest differences" });
  await expect(differences.getByRole("listitem")).toHaveText([
    `run ${recorded.slice(0, 8)}, step 1, call 0 write_file: require → allow by rule e2e44-notes`,
  ]);

  // Published in shadow: it decides nothing, so the next such write still waits, and the page lists the disagreement.
  await page.getByRole("button", { name: "Publish in shadow" }).click();
  await expect(page.getByText(/^Published version \d+ \(shadow\)\.$/)).toBeVisible();
  const versions = page.getByRole("table", { name: "Policy versions" });
  await expect(versions.getByRole("row").nth(1)).toContainText("shadowrecording");
  const shadowed = await startRunOverApi(request, writeScenario("e2e44 shadowed", "e2e44/shadowed.md"));
  await expect
    .poll(() => statusOf(request, shadowed), { timeout: OUTCOME_TIMEOUT })
    .toBe("WAITING_FOR_APPROVAL");
  await page.getByRole("button", { name: "Look again" }).click();
  await expect(page.getByRole("list", { name: "Disagreements" })).toContainText(
    `run ${shadowed.slice(0, 8)}, step 1, call 0 write_file: live require, shadow`,
  );
  await approveOverApi(request, shadowed);

  // Live: the same write now runs without asking, approved by the rule and its version.
  await page.getByRole("button", { name: "Publish live" }).click();
  const published = page.getByText(/^Published version \d+ \(live\)\.$/);
  await expect(published).toBeVisible();
  const liveVersion = Number((await published.textContent())?.match(/\d+/)?.[0]);
  await expect(versions.getByRole("row").nth(1)).toContainText("livedeciding");
  const decided = await startRunOverApi(request, writeScenario("e2e44 decided", "e2e44/decided.md"));
  await expect.poll(() => statusOf(request, decided), { timeout: OUTCOME_TIMEOUT }).toBe("COMPLETED");
  const audit = await (await request.get(`/api/audit?run=${decided}`)).json();
  expect(JSON.stringify(audit)).toContain(`policy v${liveVersion}, rule e2e44-notes`);

  // A difference links to its call on the run page.
  await page.getByRole("button", { name: "Backtest", exact: true }).click();
  await differences.getByRole("link", { name: `run ${recorded.slice(0, 8)}, step 1, call 0` }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${recorded}#step-0-call-0$`));
  const run = new RunPage(page);
  await expect(run.call(1, "write_file", 0)).toBeInViewport();
  await expect(page.locator(":target")).toHaveAttribute("id", "step-0-call-0");
});

const APPROVERS = [
  { name: "Ana Quorum", email: "ana-quorum@e2e.test", role: "approver", password: "ana-quorum-password-1" },
  { name: "Bo Quorum", email: "bo-quorum@e2e.test", role: "approver", password: "bo-quorum-password-1" },
] as const;

async function ensureApprovers(request: APIRequestContext) {
  const users = (await (await request.get("/api/users")).json()) as Array<{ email: string }>;
  for (const approver of APPROVERS) {
    if (users.some((user) => user.email === approver.email)) continue;
    const added = await request.post("/api/users", { data: approver });
    expect(added.status(), await added.text()).toBe(201);
  }
}

/** A browser of the approver's own, signed in through the sign-in page, at a phone's width. */
async function signedIn(browser: Browser, baseURL: string, approver: (typeof APPROVERS)[number]) {
  allowFor("signIn");
  const context = await browser.newContext({
    baseURL,
    storageState: { cookies: [], origins: [] },
    viewport: { width: 390, height: 844 },
  });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByRole("textbox", { name: "Email" }).fill(approver.email);
  await page.getByLabel("Password").fill(approver.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  return { context, page };
}

test("a two-approver gate is approved by two people in two browsers", async ({
  browser,
  request,
  baseURL,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  await ensureApprovers(request);
  const published = await request.post("/api/policies", { data: { document: POLICY, mode: "live" } });
  expect(published.status(), await published.text()).toBe(201);
  const runId = await startRunOverApi(request, writeScenario("e2e44 quorum", "e2e44-quorum/plan.md"));
  // One approver decides this one, but the gate is the rule's: approving it grants nothing.
  const ruledId = await startRunOverApi(request, writeScenario("e2e44 ruled", "e2e44-ruled/plan.md"));
  for (const waiting of [runId, ruledId]) {
    await expect
      .poll(() => statusOf(request, waiting), { timeout: OUTCOME_TIMEOUT })
      .toBe("WAITING_FOR_APPROVAL");
  }

  const ana = await signedIn(browser, baseURL, APPROVERS[0]);
  const bo = await signedIn(browser, baseURL, APPROVERS[1]);
  try {
    // An approver is not an admin: the page says so and shows nothing of the policy, and no link leads there.
    await ana.page.goto("/policies");
    await expect(
      ana.page.getByRole("heading", { level: 1, name: "This page needs another role" }),
    ).toBeVisible();
    await expect(
      ana.page.getByText(`you are signed in as ${APPROVERS[0].email}, who is approver`),
    ).toBeVisible();
    await expect(ana.page.getByText("e2e44-two-approvers")).toHaveCount(0);
    await expect(
      ana.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policy" }),
    ).toHaveCount(0);

    // The inbox names the rule that gated a write, and offers no "always allow" for it.
    await ana.page.goto("/inbox");
    const ruledRow = ana.page
      .getByRole("list", { name: "Waiting runs" })
      .getByRole("listitem", { name: /^e2e44 ruled:/ });
    await expect(ruledRow).toContainText("gated by policy rule e2e44-one-approver");
    await expect(ruledRow.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
    await expect(ruledRow.getByRole("checkbox", { name: /Always allow/ })).toHaveCount(0);

    await ana.page.goto(`/runs/${runId}`);
    const anaRun = new RunPage(ana.page);
    await expect(anaRun.approvalPanel).toContainText("0 of 2 approvals");
    await anaRun.approve();
    await expect(anaRun.approvalPanel).toContainText("1 of 2 approvals · approved by Ana Quorum");
    expect(await statusOf(request, runId)).toBe("WAITING_FOR_APPROVAL");

    await bo.page.goto(`/runs/${runId}`);
    const boRun = new RunPage(bo.page);
    await expect(boRun.approvalPanel).toContainText("1 of 2 approvals · approved by Ana Quorum");
    await boRun.approve();
    await boRun.expectStatus(/Completed/i, OUTCOME_TIMEOUT);
    await anaRun.expectStatus(/Completed/i, OUTCOME_TIMEOUT);
    // Nothing of this spec is left waiting in the lane's inbox.
    await approveOverApi(request, ruledId);
  } finally {
    await ana.context.close();
    await bo.context.close();
  }
});
