import { expect, test } from "@playwright/test";
import { startRunOverApi } from "../pages/api";
import { RunPage } from "../pages/run-page";

test("a run that fails before its first step says it failed, not that it is still waiting", async ({
  page,
  request,
}) => {
  const runId = await startRunOverApi(request, {
    name: "nothing scripted",
    model: { kind: "scripted", turns: [] },
  });
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  await run.expectStatus("Failed");
  await expect(page.getByText("The run ended before any step.")).toBeVisible();
  await expect(page.getByText(/Waiting for the model/)).toHaveCount(0);
});

test("the browser's icon exists, and choosing a preset puts it in the address", async ({ page, request }) => {
  expect((await request.get("/favicon.ico")).status()).toBe(200);
  await page.goto("/");
  await page.getByRole("combobox", { name: "Preset" }).selectOption("two-gates-in-one-batch");
  await expect(page).toHaveURL(/\?preset=two-gates-in-one-batch$/);
  await page.reload();
  await expect(page.getByRole("combobox", { name: "Preset" })).toHaveValue("two-gates-in-one-batch");
});
