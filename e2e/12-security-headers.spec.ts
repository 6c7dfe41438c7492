import { expect, test } from "@playwright/test";
import { PlaygroundPage } from "./pages/playground-page";

test("every page is served with security headers and works under its Content-Security-Policy", async ({
  page,
}) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (load|execute|connect|apply|frame)/i.test(message.text())) {
      violations.push(message.text());
    }
  });
  page.on("pageerror", (error) => violations.push(`page error: ${error.message}`));

  const home = await page.goto("/");
  const headers = home?.headers() ?? {};
  expect(headers["content-security-policy"]).toMatch(/default-src 'self'/);
  expect(headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["x-frame-options"]).toBe("DENY");

  // The whole loop under the policy: hydrate, start (a server action), stream, decide, finish.
  const run = await new PlaygroundPage(page).startPreset("write-then-read-back");
  await run.expectStatus("Waiting for approval");
  await run.approve();
  await run.expectStatus("Completed");
  await page.goto("/inbox");
  await expect(page.getByRole("heading", { name: "Inbox" })).toBeVisible();
  expect(violations).toEqual([]);
});

test("a run that does not exist is a 404 page, not a 200", async ({ page }) => {
  for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-run"]) {
    const response = await page.goto(`/runs/${id}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "No such run" })).toBeVisible();
  }
});
