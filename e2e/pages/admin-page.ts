import { expect, type Page } from "@playwright/test";

/** Adds a person with a role through the admin page, as the signed-in administrator. */
export async function addUser(
  page: Page,
  user: { name: string; email: string; role: string; password: string },
) {
  await page.goto("/admin");
  const form = page.getByRole("form", { name: "Add a user" });
  await form.getByRole("textbox", { name: "Name" }).fill(user.name);
  await form.getByRole("textbox", { name: "Email" }).fill(user.email);
  await form.getByRole("combobox", { name: "Role" }).selectOption(user.role);
  await form.getByLabel("Password").fill(user.password);
  await form.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByRole("table", { name: "Users" })).toContainText(user.email);
}
