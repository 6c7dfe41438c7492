import { expect, test } from "@playwright/test";
import { getReport, startRunOverApi, waitForStatus } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";
import { RunPage } from "../pages/run-page";

const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };
const deploy = {
  name: "deploy",
  description: "Deploy a version",
  resourceClass: "write",
  effect: "NON_IDEMPOTENT_WRITE",
  approval: "always",
  parameters: { type: "object", properties: { version: { type: "integer" } }, required: ["version"] },
  result: { deployed: true },
};

async function openRun(page: import("@playwright/test").Page, runId: string): Promise<RunPage> {
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  await expect(run.heading).toBeVisible();
  return run;
}

test("edit, then approve: the edit is checked live, shown as a diff, and the edited call is what runs", async ({
  page,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, {
    name: `edit then approve ${testInfo.workerIndex}`,
    workspace: { "notes.md": "old notes\n" },
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "write_file", arguments: { path: "notes.md", content: "draft\n" } }] },
        finish,
      ],
    },
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const run = await openRun(page, runId);
  await run.approvalPanel.getByRole("button", { name: "Edit arguments, then approve" }).click();
  const field = run.approvalPanel.getByRole("textbox", { name: /Arguments of write_file/ });
  await expect(field).toContainText('"content": "draft\\n"');

  // What the tool's schema refuses is named, and cannot be approved.
  await field.fill('{ "path": "notes.md" }');
  await expect(run.approvalPanel.getByRole("alert")).toContainText(/content/);
  const approveEdited = run.approvalPanel.getByRole("button", { name: "Approve with these arguments" });
  await expect(approveEdited).toBeDisabled();
  await field.fill('{ "path": "notes.md", "content": "final notes\\n" }');
  await expect(run.approvalPanel.getByText("The tool accepts these arguments.")).toBeVisible();
  const diff = run.approvalPanel.getByRole("figure", { name: "Changes from what the model sent" });
  await expect(diff.locator("del")).toContainText('"content": "draft\\n"');
  await expect(diff.locator("ins")).toContainText('"content": "final notes\\n"');
  await run.screenshot("edit with its diff", testInfo);
  await approveEdited.click();

  await run.expectStatus("Completed");
  await expect(run.call(1, "write_file", 0)).toContainText("edited");
  await expect(page.getByRole("list", { name: "Decisions" })).toContainText(
    /Approved with edited arguments by admin/,
  );
  const report = await getReport(request, runId);
  expect(report.steps[0].calls[0]).toMatchObject({
    arguments: '{"path":"notes.md","content":"draft\\n"}',
    editedArguments: '{"content":"final notes\\n","path":"notes.md"}',
  });
  expect(report.decisions[0]).toMatchObject({
    argumentsDigest: expect.any(String),
    editedDigest: expect.any(String),
  });
});

test("approve all gates: the two-gate preset numbers its gates and one decision runs both", async ({
  page,
}, testInfo) => {
  const run = await new PlaygroundPage(page).startPreset("two-gates-in-one-batch");
  await run.expectStatus("Waiting for approval");
  const calls = run.approvalPanel.getByRole("list", { name: "Pending calls" });
  await expect(calls.getByRole("listitem").filter({ hasText: "write_file" })).toContainText(
    "gate 1 of 2 · barrier",
  );
  await expect(calls.getByRole("listitem").filter({ hasText: "delete_file" })).toContainText("gate 2 of 2");
  await run.screenshot("two gates, numbered", testInfo);
  await run.approvalPanel.getByRole("button", { name: "Approve all 2 gates in this turn" }).click();
  await run.expectStatus("Completed");
  await run.expectCallState(1, "write_file", 1, "ok");
  await run.expectCallState(1, "delete_file", 3, "ok");
  await expect(page.getByRole("list", { name: "Decisions" })).toContainText(
    /Approved all 2 gates of the turn by admin/,
  );
});

test("always allow, now a grant for this run: a later call of the tool runs without a gate, until the grant is revoked", async ({
  page,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, {
    name: `always allow ${testInfo.workerIndex}`,
    tools: [deploy],
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "deploy", arguments: { version: 1 } }] },
        { calls: [{ name: "deploy", arguments: { version: 2 } }] },
        { calls: [{ name: "write_file", arguments: { path: "log.txt", content: "2 deployed" } }] },
        { calls: [{ name: "deploy", arguments: { version: 3 } }] },
        finish,
      ],
    },
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const run = await openRun(page, runId);
  // The grant form's defaults are the old "always allow": this run, any arguments, until revoked.
  await run.approvalPanel
    .getByRole("checkbox", { name: "Also allow later calls of deploy without asking" })
    .check();
  await expect(run.approvalPanel.getByLabel("For", { exact: true })).toHaveValue("run");
  await run.approve();

  // deploy 2 ran ungated; the write waits for its own decision.
  await run.expectCallState(2, "deploy", 0, "ok");
  await expect(run.call(2, "deploy", 0)).toContainText(/allowed by grant [0-9a-f]{8} by admin/);
  await expect(run.approvalPanel.getByRole("list", { name: "Pending calls" })).toContainText("write_file");
  const allowances = page.getByRole("region", { name: "Allowed without asking in this run" });
  await expect(allowances).toContainText("deploy for this run");
  await expect(allowances).toContainText("given by admin");
  await run.screenshot("a grant, and the next deploy let through", testInfo);

  await allowances.getByRole("button", { name: /^Revoke grant [0-9a-f]{8} of deploy$/ }).click();
  await expect(allowances).toHaveCount(0);
  await run.approve();
  // Revoked: deploy 3 waits for a decision again.
  await expect(run.approvalPanel.getByRole("list", { name: "Pending calls" })).toContainText("deploy");
  await run.expectCallState(4, "deploy", 0, "awaiting approval");
  const report = await getReport(request, runId);
  expect(report.decisions.map((row: { kind: string }) => row.kind)).toEqual([
    "decision",
    "automatic",
    "decision",
  ]);
});

test("a wait that expires counts down, then ends as expired, never as denied", async ({
  page,
  request,
}, testInfo) => {
  // The wait's own 30 s, and the sweep that ends it, on top of the test's budget.
  testInfo.setTimeout(testInfo.timeout + 60_000);
  const runId = await startRunOverApi(request, {
    name: `expiring ${testInfo.workerIndex}`,
    // Long enough that the page is open while the run still waits, however busy the machine (4 s
    // expired before the page loaded under CI's load); the countdown is watched, not timed.
    approvalTimeoutSeconds: 30,
    model: {
      kind: "scripted",
      turns: [
        {
          calls: [
            { name: "delete_file", arguments: { path: "a.txt" } },
            { name: "list_files", arguments: {} },
          ],
        },
        finish,
      ],
    },
    workspace: { "a.txt": "keep me" },
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const run = await openRun(page, runId);
  const timer = run.approvalPanel.getByRole("timer", { name: "Time left to decide" });
  await expect(timer).toHaveText(/^0:[0-3]\d$/);
  const first = await timer.textContent();
  // It counts down: the time left changes while nobody decides.
  await expect(timer).not.toHaveText(first ?? "");
  await run.screenshot("counting down", testInfo);

  await run.expectStatus("Completed", 60_000);
  await run.expectCallState(1, "delete_file", 0, "expired: nobody decided in time");
  await run.expectCallState(1, "list_files", 1, "invalidated");
  const decisions = page.getByRole("list", { name: "Decisions" });
  await expect(decisions).toContainText("Expired: nobody decided in time");
  await expect(decisions).not.toContainText("Denied");
  const report = await getReport(request, runId);
  expect(report.decisions).toMatchObject([{ kind: "expiry", outcome: "expired" }]);
});
