import { expect, type Page, test } from "@playwright/test";
import { PlaygroundPage } from "../pages/playground-page";

/** Console messages and page errors that say the Content-Security-Policy blocked something. */
function collectViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (
      /Content Security Policy|Refused to (load|execute|connect|apply|frame|evaluate)|EvalError/i.test(
        message.text(),
      )
    ) {
      violations.push(`${page.url()}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => violations.push(`${page.url()}: page error: ${error.message}`));
  return violations;
}

/** The script-src directive of a served policy. */
function scriptSourceOf(policy: string): string {
  return (
    policy
      .split(";")
      .map((directive) => directive.trim())
      .find((directive) => directive.startsWith("script-src")) ?? ""
  );
}

test("every page is served with security headers and works under its Content-Security-Policy", async ({
  page,
}) => {
  const violations = collectViolations(page);

  const home = await page.goto("/");
  const headers = home?.headers() ?? {};
  const policy = headers["content-security-policy"] ?? "";
  expect(policy).toMatch(/default-src 'self'/);
  expect(policy).toMatch(/frame-ancestors 'none'/);
  // Scripts run by nonce only: nothing inline an attacker could inject, no eval.
  const scriptSource = scriptSourceOf(policy);
  expect(scriptSource).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
  expect(scriptSource).not.toContain("'unsafe-inline'");
  expect(scriptSource).not.toContain("'unsafe-eval'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["x-frame-options"]).toBe("DENY");
  // A nonce is new for every response.
  const again = await page.request.get("/");
  expect(scriptSourceOf(again.headers()["content-security-policy"] ?? "")).not.toBe(scriptSource);

  // The whole loop under the policy: hydrate, check the scenario as it is typed, start (a server
  // action), stream, decide, finish.
  const run = await new PlaygroundPage(page).startPreset("write-then-read-back");
  await run.expectStatus("Waiting for approval");
  await run.approve();
  await run.expectStatus("Completed");
  const runUrl = page.url();
  const runId = runUrl.split("/runs/")[1] ?? "";
  // Every main page, hydrated under the policy.
  for (const [path, heading] of [
    ["/inbox", "Inbox"],
    ["/runs", "Runs"],
    ["/audit", "Audit"],
    ["/account", "Your account"],
    ["/admin", "Users"],
    [`/?from=${runId}`, "Playground"],
    [`/compare?runs=${runId},${runId}`, null],
    [`/runs/${runId}`, null],
  ] as const) {
    const response = await page.goto(path);
    expect(scriptSourceOf(response?.headers()["content-security-policy"] ?? ""), path).toMatch(/'nonce-/);
    if (heading) await expect(page.getByRole("heading", { name: heading }).first()).toBeVisible();
  }
  expect(violations).toEqual([]);
});

test("the sign-in page works under the policy, and API answers allow nothing to load", async ({
  browser,
  request,
}) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  const violations = collectViolations(page);
  const response = await page.goto("/sign-in");
  expect(scriptSourceOf(response?.headers()["content-security-policy"] ?? "")).not.toMatch(/unsafe/);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await page.getByRole("textbox", { name: "Email" }).fill("nobody@e2e.test");
  expect(violations).toEqual([]);
  await context.close();
  const api = await request.get("/api/health");
  expect(api.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
});

test("a run that does not exist is a 404 page, not a 200", async ({ page }) => {
  for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-run"]) {
    const response = await page.goto(`/runs/${id}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "No such run" })).toBeVisible();
  }
});
