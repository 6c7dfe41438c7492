import { expect, test as setup } from "@playwright/test";
import { E2E_ADMIN } from "./support/accounts";

setup("sign in as the seeded administrator", async ({ page }, testInfo) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
  await page.getByRole("textbox", { name: "Email" }).fill(E2E_ADMIN.email);
  await page.getByLabel("Password").fill(E2E_ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Playground" })).toBeVisible();
  await page.context().storageState({ path: testInfo.project.metadata.adminStorageState });
});
