import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, type TestInfo, test } from "@playwright/test";
import { loadScenario, startRunOverApi, waitForStatus } from "../pages/api";
import { screenshotOf } from "../support/budget";
import { expectFitsAndPassesAxe as expectPageFitsAndPassesAxe } from "../support/layout";

async function expectFitsAndPassesAxe(page: Page, label: string, testInfo: TestInfo) {
  await expectPageFitsAndPassesAxe(page, label);
  const body = await screenshotOf(page);
  await testInfo.attach(label, { body, contentType: "image/png" });
  // To look at the pages without the HTML report: E2E_SCREENSHOT_DIR=/some/dir.
  const folder = process.env.E2E_SCREENSHOT_DIR;
  if (folder) writeFileSync(path.join(folder, `${label.replaceAll(/\W+/g, "-")}.png`), body);
}

const SCREENS = [
  { width: 390, height: 844, label: "390 px phone" },
  { width: 1280, height: 900, label: "1280 px screen" },
] as const;

for (const colorScheme of ["light", "dark"] as const)
  for (const screen of SCREENS) {
    test(`every page fits a ${screen.label} and passes axe, ${colorScheme}`, async ({
      browser,
      request,
      baseURL,
    }, testInfo) => {
      const runId = await startRunOverApi(request, {
        ...loadScenario("two-gates-in-one-batch.json"),
        decisions: [],
      });
      await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
      // A decided run, so the audit has a row with a long reason to lay out.
      const deniedId = await startRunOverApi(request, {
        ...loadScenario("write-then-read-back.json"),
        name: "laid out",
      });
      await waitForStatus(request, deniedId, "WAITING_FOR_APPROVAL");
      const digest = (await (await request.get(`/api/runs/${deniedId}/view`)).json()).pending.turnDigest;
      await request.post(`/api/runs/${deniedId}/decision`, {
        data: {
          approve: false,
          turnDigest: digest,
          reason: "a reason long enough to wrap on a phone instead of widening it",
        },
      });
      const context = await browser.newContext({
        baseURL,
        storageState: testInfo.project.use.storageState,
        viewport: { width: screen.width, height: screen.height },
        colorScheme,
      });
      const at = `${screen.width} px, ${colorScheme}`;
      try {
        const page = await context.newPage();
        await page.goto("/");
        await expect(page.getByText("Valid scenario")).toBeVisible();
        await page.getByText("How this works").click();
        await expectFitsAndPassesAxe(page, `playground, ${at}`, testInfo);
        await page.goto(`/runs/${runId}`);
        await expect(page.getByRole("region", { name: "Approval needed" })).toBeVisible();
        await page.getByText("How this works").click();
        await page.getByText(/^Event log/).click();
        await page
          .getByRole("list", { name: "Event log" })
          .getByRole("listitem")
          .first()
          .locator("summary")
          .click();
        await expectFitsAndPassesAxe(page, `waiting run, ${at}`, testInfo);
        const panel = page.getByRole("region", { name: "Approval needed" });
        await panel.getByRole("button", { name: "Edit arguments, then approve" }).click();
        await panel
          .getByRole("textbox", { name: /Arguments of write_file/ })
          .fill(
            '{ "path": "new/report.txt", "content": "a much longer edited content line that must wrap or scroll inside its own box" }',
          );
        await expect(panel.getByRole("figure", { name: "Changes from what the model sent" })).toBeVisible();
        await expectFitsAndPassesAxe(page, `editing arguments, ${at}`, testInfo);
        await page.goto("/inbox");
        await expect(page.getByRole("list", { name: "Waiting runs" })).toBeVisible();
        await expectFitsAndPassesAxe(page, `inbox, ${at}`, testInfo);
        await page.keyboard.press("?");
        await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
        await expectFitsAndPassesAxe(page, `inbox keyboard help, ${at}`, testInfo);
        await page.keyboard.press("Escape");
        await page.goto("/runs");
        await expect(page.getByRole("table")).toBeVisible();
        await expectFitsAndPassesAxe(page, `runs, ${at}`, testInfo);
        await page.goto("/audit");
        await expect(page.getByRole("table", { name: "Audit rows, newest first" })).toContainText(
          "a reason long enough",
        );
        await expectFitsAndPassesAxe(page, `audit, ${at}`, testInfo);
      } finally {
        await context.close();
      }
    });
  }
