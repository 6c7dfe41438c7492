import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, type TestInfo, test } from "@playwright/test";
import { loadScenario, startRunOverApi, waitForStatus } from "./pages/api";

async function expectFitsAndPassesAxe(page: Page, label: string, testInfo: TestInfo) {
  // What sticks out past the right edge, outermost first, so a failure names the culprit.
  const overflowing = await page.evaluate(() =>
    document.documentElement.scrollWidth <= window.innerWidth
      ? []
      : [...document.querySelectorAll("body *")]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .slice(0, 5)
          .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`),
  );
  expect(overflowing, `${label} is wider than the screen`).toEqual([]);
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  expect(
    results.violations.map((violation) => ({
      rule: violation.id,
      targets: violation.nodes.map((node) => node.target),
    })),
    label,
  ).toEqual([]);
  await testInfo.attach(label, { body: await page.screenshot({ fullPage: true }), contentType: "image/png" });
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`every page fits a 390 px phone and passes axe, ${colorScheme}`, async ({
    browser,
    request,
    baseURL,
  }, testInfo) => {
    const runId = await startRunOverApi(request, {
      ...loadScenario("two-gates-in-one-batch.json"),
      decisions: [],
    });
    await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
    const context = await browser.newContext({
      baseURL,
      storageState: testInfo.project.use.storageState,
      viewport: { width: 390, height: 844 },
      colorScheme,
    });
    try {
      const page = await context.newPage();
      await page.goto("/");
      await expect(page.getByText("Valid scenario")).toBeVisible();
      await expectFitsAndPassesAxe(page, `playground, ${colorScheme}`, testInfo);
      await page.goto(`/runs/${runId}`);
      await expect(page.getByRole("region", { name: "Approval needed" })).toBeVisible();
      await expectFitsAndPassesAxe(page, `waiting run, ${colorScheme}`, testInfo);
      const panel = page.getByRole("region", { name: "Approval needed" });
      await panel.getByRole("button", { name: "Edit arguments, then approve" }).click();
      await panel
        .getByRole("textbox", { name: /Arguments of write_file/ })
        .fill(
          '{ "path": "new/report.txt", "content": "a much longer edited content line that must wrap or scroll inside its own box" }',
        );
      await expect(panel.getByRole("figure", { name: "Changes from what the model sent" })).toBeVisible();
      await expectFitsAndPassesAxe(page, `editing arguments, ${colorScheme}`, testInfo);
      await page.goto("/inbox");
      await expect(page.getByRole("list", { name: "Waiting runs" })).toBeVisible();
      await expectFitsAndPassesAxe(page, `inbox, ${colorScheme}`, testInfo);
    } finally {
      await context.close();
    }
  });
}
