import { expect, test } from "@playwright/test";
import { analyzeWithAxe, screenshotOf } from "../support/budget";

test("the playground lists the operator's MCP servers: each tool's class, approval, untrusted description and fingerprint", async ({
  page,
}) => {
  await page.goto("/");
  await page.getByText("MCP servers", { exact: true }).click();
  const memory = page.getByRole("region", { name: "MCP server memory" });
  await expect(memory).toContainText("trusted · stdio");

  const read = memory.getByRole("listitem").filter({ hasText: "memory__read_graph" });
  await expect(read).toContainText("no approval");
  await expect(read).toContainText("pure_read · READ");
  const create = memory.getByRole("listitem").filter({ hasText: "memory__create_entities" });
  await expect(create).toContainText("gated");
  await expect(create).toContainText("write · NON_IDEMPOTENT_WRITE");
  await expect(create.getByLabel("memory__create_entities: the server's description")).toBeVisible();
  await expect(create).toContainText(/Fingerprint [0-9a-f]{12}/);

  const results = await analyzeWithAxe(page);
  expect(results.violations.map((violation) => violation.id)).toEqual([]);

  // On a phone, the long tool names and descriptions wrap inside the panel instead of widening the page.
  await page.setViewportSize({ width: 390, height: 844 });
  await create.getByText("Schema and annotations").click();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  const folder = process.env.E2E_SCREENSHOT_DIR;
  if (folder) await screenshotOf(page, { path: `${folder}/mcp-servers-390.png` });
});
