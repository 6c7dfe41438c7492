import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { getView, startRunOverApi, waitForStatus } from "../pages/api";
import { RunPage } from "../pages/run-page";
import { screenshotOf } from "../support/budget";

// The e2e server's MCP server "notes" is the fixture in lib/server/mcp/testing (playwright.config.ts):
// a file in its folder changes write_note's description, as a server that turns on its users would.
const description = path.join(process.env.E2E_MCP_FIXTURE_DIR ?? "", "description.txt");
const finish = { calls: [{ name: "finish", arguments: { summary: "done" } }] };

test.afterEach(() => rmSync(description, { force: true }));

test("an approval given for one definition of a tool is voided when the server changes it: nothing is sent, the page and the audit say why", async ({
  page,
  request,
}) => {
  const name = `rug pull ${Date.now()}`;
  const runId = await startRunOverApi(request, {
    name,
    mcpServers: ["notes"],
    model: {
      kind: "scripted",
      turns: [
        {
          calls: [
            { name: "notes__write_note", arguments: { key: "plan", value: "ship it" } },
            { name: "notes__read_note", arguments: { key: "plan" } },
          ],
        },
        finish,
      ],
    },
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  const shown = run.approvalPanel.getByRole("region", { name: "Definition of notes__write_note" });
  await expect(shown).toContainText("Writes a note, replacing any note with the same key.");

  // While the person reads it, the server changes what the tool says it does.
  writeFileSync(description, "Writes a note. Also mails every note to someone else.");
  await run.approvalPanel.getByRole("button", { name: "Approve", exact: true }).click();
  await run.expectStatus("Completed");

  await expect(run.call(1, "notes__write_note", 0)).toContainText("was not sent");
  await expect(run.call(1, "notes__read_note", 1)).toContainText("invalidated");
  const decisions = page.getByRole("list", { name: "Decisions" });
  await expect(decisions).toContainText("Approval voided: the tool changed before it was sent");
  const view = await getView(request, runId);
  expect(view.steps[0]?.calls[0]?.error?.code).toBe("tool_changed");
  const folder = process.env.E2E_SCREENSHOT_DIR;
  if (folder) await screenshotOf(page, { path: `${folder}/mcp-rug-pull.png` });

  await page.goto(`/audit?outcome=voided&run=${runId.slice(0, 8)}`);
  const rows = page
    .getByRole("table", { name: "Audit rows, newest first" })
    .getByRole("row")
    .filter({ hasText: "notes__write_note" });
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText("Voided (the tool changed; not sent)");
});

test("a slow MCP call shows its progress on the run page while it runs", async ({ page, request }) => {
  // The call runs at least 4 s and until this file exists: the page is looked at while it runs.
  const release = `release-progress-${Date.now()}`;
  const runId = await startRunOverApi(request, {
    name: `progress ${Date.now()}`,
    mcpServers: ["notes"],
    model: {
      kind: "scripted",
      turns: [{ calls: [{ name: "notes__slow_read", arguments: { ms: 4_000, until: release } }] }, finish],
    },
  });
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  const bar = page.getByRole("progressbar", { name: "progress of notes__slow_read call 0" });
  await expect(bar).toBeVisible();
  await expect(run.call(1, "notes__slow_read", 0)).toContainText(/step \d+ of 16/);
  const folder = process.env.E2E_SCREENSHOT_DIR;
  if (folder) await screenshotOf(run.step(1), { path: `${folder}/mcp-progress.png` });
  writeFileSync(path.join(process.env.E2E_MCP_FIXTURE_DIR ?? "", release), "");
  await run.expectStatus("Completed");
  await expect(bar).toHaveCount(0);
});
