import { expect, test } from "@playwright/test";
import { getReport, startRunOverApi, waitForStatus } from "../pages/api";
import { RunPage } from "../pages/run-page";
import { expectFitsAndPassesAxe } from "../support/layout";

/**
 * Scoped grants (docs/policies.md#grants): an approver allows write_file under docs/ for this
 * agent for 8 hours, from the approval panel; a later run of the agent writes under docs/ without
 * asking, audited as approved by the grant; a scenario of the same name that writes elsewhere is
 * another agent and asks; once the grant is revoked on /grants, it asks again.
 */
test("a grant for this agent with a condition lets a later run's call through, audited, until it is revoked", async ({
  page,
  request,
}, testInfo) => {
  // The scenario is the agent, by its name and content: a name of this test's own, so no other
  // spec's runs are covered.
  const agent = `docs writer ${testInfo.workerIndex}-${Date.now()}`;
  const writing = (path: string) => ({
    name: agent,
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "write_file", arguments: { path, content: "# notes\n" } }] },
        { calls: [{ name: "finish", arguments: { summary: "written" } }] },
      ],
    },
  });

  const first = await startRunOverApi(request, writing("docs/guide.md"));
  await waitForStatus(request, first, "WAITING_FOR_APPROVAL");
  await page.goto(`/runs/${first}`);
  const run = new RunPage(page);
  const panel = run.approvalPanel;
  await panel.getByRole("checkbox", { name: "Also allow later calls of write_file without asking" }).check();
  await panel.getByLabel("For", { exact: true }).selectOption({ label: "this agent" });
  await panel.getByLabel("Only when (CEL, optional)").fill('args.path.startsWith("docs/")');
  await panel.getByLabel("Lasts").selectOption({ label: "8 hours" });
  await run.screenshot("a grant for this agent, under docs/, for 8 hours", testInfo);
  await run.approve();
  await run.expectStatus("Completed");

  // A later run of the same agent: its write under docs/ runs without asking.
  const second = await startRunOverApi(request, writing("docs/guide.md"));
  await waitForStatus(request, second, "COMPLETED");
  await page.goto(`/runs/${second}`);
  await expect(run.call(1, "write_file", 0)).toContainText(/allowed by grant [0-9a-f]{8} by admin/);
  const [automatic] = (await getReport(request, second)).decisions;
  expect(automatic).toMatchObject({ kind: "automatic", toolName: "write_file" });
  expect(automatic.actor).toMatch(/^grant [0-9a-f]{8} by admin$/);
  const grantId = (automatic.actor as string).split(" ")[1];

  // The same name with another script is another agent: its write waits.
  const outside = await startRunOverApi(request, writing("src/app.ts"));
  await waitForStatus(request, outside, "WAITING_FOR_APPROVAL");

  // All live grants, on their page; revoked there.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Grants" }).click();
  const grants = page.getByRole("list", { name: "Live grants" });
  const row = grants.getByRole("listitem").filter({ hasText: `grant ${grantId}` });
  await expect(row).toContainText(
    `write_file for agent ${agent} as it was when granted, when args.path.startsWith("docs/")`,
  );
  await expect(row).toContainText("1 use, given by admin");
  await run.screenshot("the grant on /grants", testInfo);
  await page.setViewportSize({ width: 390, height: 844 });
  await expectFitsAndPassesAxe(page, "the grants page on a 390 px phone");
  await row.getByRole("button", { name: `Revoke grant ${grantId} of write_file` }).click();
  await expect(row).toHaveCount(0);

  // Revoked: the same agent's write under docs/ waits again.
  const third = await startRunOverApi(request, writing("docs/guide.md"));
  await waitForStatus(request, third, "WAITING_FOR_APPROVAL");
  expect((await getReport(request, third)).decisions).toEqual([]);
});
