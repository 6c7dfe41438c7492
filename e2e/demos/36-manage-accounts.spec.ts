import { type Browser, expect, test } from "@playwright/test";
import { addUser } from "../pages/admin-page";
import { allowFor } from "../support/budget";

// An admin manages people on /admin (role, deactivate, reset, remove), each change shows on /audit;
// a person changes their own password on /account; a non-admin on /admin is told it is for admins.

async function signIn(browser: Browser, baseURL: string, user: { email: string; password: string }) {
  // A browser context of its own, signed in through the form: a heavy step with its own budget.
  allowFor("signIn");
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByRole("textbox", { name: "Email" }).fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return { context, page };
}

test("an admin changes a role, deactivates, resets a password and removes; each change is audited", async ({
  page,
  browser,
  baseURL,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const suffix = Date.now();
  const kim = { name: "Kim", email: `kim-${suffix}@e2e.test`, role: "viewer", password: "kim-password-1" };
  await addUser(page, kim);
  // Adding the same person again, in capitals, is refused naming the account; a later success
  // replaces the refusal.
  const form = page.getByRole("form", { name: "Add a user" });
  await form.getByRole("textbox", { name: "Name" }).fill(kim.name);
  await form.getByRole("textbox", { name: "Email" }).fill(kim.email.toUpperCase());
  await form.getByLabel("Password").fill(kim.password);
  await form.getByRole("button", { name: "Add user" }).click();
  const refusal = page.getByRole("alert").filter({ hasText: `${kim.email} already has an account` });
  await expect(refusal).toBeVisible();

  const row = page.getByRole("row").filter({ hasText: kim.email });
  await row.getByRole("combobox", { name: `Role of ${kim.email}` }).selectOption("operator");
  await row.getByRole("button", { name: `Change role of ${kim.email}` }).click();
  await expect(page.getByRole("status").filter({ hasText: `${kim.email} is now operator.` })).toBeVisible();
  await expect(refusal).toHaveCount(0);

  const signedIn = await signIn(browser, baseURL, kim);
  try {
    await expect(signedIn.page.getByRole("heading", { name: "Playground" })).toBeVisible();
    // A non-admin opening /admin is told why, with a 403.
    const response = await signedIn.page.goto("/admin");
    expect(response?.status()).toBe(403);
    await expect(signedIn.page.getByRole("heading", { name: "This page needs another role" })).toBeVisible();
    await expect(signedIn.page.getByText(`you are signed in as ${kim.email}, who is operator`)).toBeVisible();

    // Deactivated: the open session ends at once.
    await row.getByRole("button", { name: `Deactivate ${kim.email}` }).click();
    await expect(page.getByRole("status").filter({ hasText: `Deactivated ${kim.email}` })).toBeVisible();
    await expect(row).toContainText("deactivated");
    await signedIn.page.goto("/inbox");
    await expect(signedIn.page).toHaveURL(/\/sign-in/);
  } finally {
    await signedIn.context.close();
  }

  await row.getByRole("button", { name: `Reactivate ${kim.email}` }).click();
  await expect(row.getByRole("button", { name: `Deactivate ${kim.email}` })).toBeVisible();
  await row.getByRole("button", { name: `Reset password of ${kim.email}` }).click();
  await row.getByRole("textbox", { name: `New password for ${kim.email}` }).fill("kim-password-2");
  await row.getByRole("button", { name: "Set password" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Set a new password for ${kim.email}` }),
  ).toBeVisible();

  // Kim changes her own password on /account, given the current one.
  const again = await signIn(browser, baseURL, { ...kim, password: "kim-password-2" });
  try {
    await expect(again.page.getByRole("heading", { name: "Playground" })).toBeVisible();
    await again.page.goto("/account");
    const form = again.page.getByRole("form", { name: "Change your password" });
    await form.getByLabel("Current password").fill("not-my-password");
    await form.getByLabel("New password").fill("kim-password-3");
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(again.page.getByRole("alert").filter({ hasText: "current password" })).toBeVisible();
    await form.getByLabel("Current password").fill("kim-password-2");
    await form.getByLabel("New password").fill("kim-password-3");
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(again.page.getByRole("status").filter({ hasText: "Password changed" })).toBeVisible();
  } finally {
    await again.context.close();
  }

  await page.goto("/admin");
  await row.getByRole("button", { name: `Remove ${kim.email}` }).click();
  await row.getByRole("button", { name: `Remove ${kim.email} for good` }).click();
  await expect(page.getByRole("table", { name: "Users" })).not.toContainText(kim.email);

  await page.goto("/audit");
  const changes = page.getByRole("table", { name: "Account changes" });
  for (const what of [
    "added",
    "role changed (viewer → operator)",
    "deactivated",
    "reactivated",
    "password set by an admin",
    "changed their own password",
    "removed",
  ]) {
    await expect(
      changes.getByRole("row").filter({ hasText: kim.email }).filter({ hasText: what }).first(),
    ).toBeVisible();
  }
});
