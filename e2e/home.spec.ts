import { expect, test } from "@playwright/test";

test("the home page says what the product is", async ({ page }, testInfo) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/approve an agent.s tool calls/i);
  await expect(page.getByRole("list", { name: "What the runtime guarantees" })).toBeVisible();
  for (const pillar of ["Waves", "Ordered barriers", "Turn-bound decisions"]) {
    await expect(page.getByRole("heading", { name: pillar })).toBeVisible();
  }
  await testInfo.attach("home", {
    body: await page.screenshot({ fullPage: true }),
    contentType: "image/png",
  });
});

test("the health route answers after a real database query", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  const body = await response.json();
  expect(body.ok).toBe(true);
  expect(body.database).toBe(process.env.DATABASE_URL ? "postgres" : "pglite");
});
