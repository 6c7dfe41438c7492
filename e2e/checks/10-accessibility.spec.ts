import { expect, type Page, test } from "@playwright/test";
import { loadScenario, startRunOverApi } from "../pages/api";
import { RunPage } from "../pages/run-page";
import { analyzeWithAxe } from "../support/budget";

/** Every WCAG 2.1 A/AA rule axe can check, as a list a person can act on. */
async function violationsOn(page: Page) {
  const results = await analyzeWithAxe(page);
  return results.violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact,
    targets: violation.nodes.map((node) => node.target.join(" ")),
  }));
}

test("the playground, a waiting run with its approval panel, and the inbox pass axe's WCAG 2.1 AA checks", async ({
  page,
  request,
}) => {
  await page.goto("/?preset=two-gates-in-one-batch");
  await expect(page.getByText("Valid scenario")).toBeVisible();
  expect(await violationsOn(page)).toEqual([]);

  const runId = await startRunOverApi(request, {
    ...loadScenario("two-gates-in-one-batch.json"),
    decisions: [],
  });
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  await run.expectStatus("Waiting for approval");
  await page.getByText("View").first().click();
  expect(await violationsOn(page)).toEqual([]);
  // The decision variants' form: the arguments editor with a failed check, then with its diff.
  await run.approvalPanel.getByRole("button", { name: "Edit arguments, then approve" }).click();
  const field = run.approvalPanel.getByRole("textbox", { name: /Arguments of write_file/ });
  await field.fill("{");
  await expect(run.approvalPanel.getByRole("alert")).toContainText("Not valid JSON");
  expect(await violationsOn(page)).toEqual([]);
  await field.fill('{ "path": "new/report.txt", "content": "edited" }');
  await expect(
    run.approvalPanel.getByRole("figure", { name: "Changes from what the model sent" }),
  ).toBeVisible();
  expect(await violationsOn(page)).toEqual([]);

  await page.goto("/inbox");
  await expect(page.getByRole("list", { name: "Waiting runs" })).toBeVisible();
  expect(await violationsOn(page)).toEqual([]);
});

test("the sign-in page and the users-and-tokens page pass axe's WCAG 2.1 AA checks", async ({
  page,
  browser,
  baseURL,
}) => {
  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "Users and tokens" })).toBeVisible();
  expect(await violationsOn(page)).toEqual([]);

  const signedOut = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  try {
    const signInPage = await signedOut.newPage();
    await signInPage.goto("/sign-in");
    await expect(signInPage.getByRole("heading", { name: "Sign in" })).toBeVisible();
    expect(await violationsOn(signInPage)).toEqual([]);
  } finally {
    await signedOut.close();
  }
});
