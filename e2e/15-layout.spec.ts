import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, type TestInfo, test } from "@playwright/test";
import { loadScenario, startRunOverApi, waitForStatus } from "./pages/api";

async function expectFitsAndPassesAxe(page: Page, label: string, testInfo: TestInfo) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${label} is wider than the screen`).toBeLessThanOrEqual(0);
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
      await page.goto("/inbox");
      await expect(page.getByRole("list", { name: "Waiting runs" })).toBeVisible();
      await expectFitsAndPassesAxe(page, `inbox, ${colorScheme}`, testInfo);
    } finally {
      await context.close();
    }
  });
}
