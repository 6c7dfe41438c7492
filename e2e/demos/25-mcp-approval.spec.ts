import { expect, test } from "@playwright/test";
import { getView, waitForStatus } from "../pages/api";
import { PlaygroundPage } from "../pages/playground-page";
import { analyzeWithAxe, screenshotOf } from "../support/budget";

// The server's MCP "memory" server is the reference memory server over stdio (playwright.config.ts).
test("an MCP write is approved from the inbox, bound to the tool's definition shown there, and its entity is read back", async ({
  page,
  request,
}) => {
  const playground = new PlaygroundPage(page);
  const run = await playground.startPreset("mcp-memory-create-then-read");
  await run.expectStatus("Waiting for approval");
  const { runId } = run;
  const view = await getView(request, runId);
  const shown = view.pending?.tools?.find((tool) => tool.name === "memory__create_entities");
  expect(shown?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  expect(view.pending?.calls[0]?.toolFingerprint).toBe(shown?.fingerprint);

  // The run page's approval panel shows the definition in full: server, trust, fingerprint, description.
  const onRunPage = run.approvalPanel.getByRole("region", { name: "Definition of memory__create_entities" });
  await expect(onRunPage).toContainText("From the MCP server memory (trusted)");
  await expect(onRunPage).toContainText(shown?.fingerprint.slice(0, 12) ?? "missing");
  await expect(onRunPage.getByLabel("memory__create_entities: the server's description")).toContainText(
    shown?.description ?? "missing",
  );
  // On a phone, the fingerprint, description and schema wrap inside the panel.
  await page.setViewportSize({ width: 390, height: 844 });
  await onRunPage.getByText("Schema and annotations").click();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  const folder = process.env.E2E_SCREENSHOT_DIR;
  if (folder) await screenshotOf(run.approvalPanel, { path: `${folder}/mcp-approval-390.png` });
  await page.setViewportSize({ width: 1280, height: 720 });
  const axe = await analyzeWithAxe(page);
  expect(axe.violations.map((violation) => violation.id)).toEqual([]);

  // The inbox row shows the same definition; approving there runs the write, then the read behind it.
  await page.goto("/inbox");
  const row = page.getByRole("list", { name: "Waiting runs" }).getByRole("listitem", {
    name: new RegExp(
      `^${view.name}: memory__create_entities, memory__open_nodes, .*run ${runId.slice(0, 8)}$`,
    ),
  });
  const inInbox = row.getByRole("region", { name: "Definition of memory__create_entities" });
  await expect(inInbox).toContainText(shown?.fingerprint.slice(0, 12) ?? "missing");
  await expect(inInbox.getByLabel("memory__create_entities: the server's description")).toBeVisible();
  if (folder) await screenshotOf(page, { path: `${folder}/mcp-inbox.png` });
  await row.focus();
  await page.keyboard.press("a");
  await waitForStatus(request, runId, "COMPLETED");

  await page.goto(`/runs/${runId}`);
  await run.expectStatus("Completed");
  const read = run.call(1, "memory__open_nodes", 1);
  await expect(read).toContainText("ok");
  const done = await getView(request, runId);
  const readBack = done.steps[0]?.calls.find((call) => call.name === "memory__open_nodes")?.result as {
    entities?: Array<{ name: string }>;
  };
  expect(readBack.entities?.map((entity) => entity.name)).toContain("Ada Lovelace");
  await expect(page.getByRole("main")).toContainText("Ada Lovelace");

  // The run page lists the tools of the run's own servers, as the playground does.
  await page.getByText("This run's MCP servers", { exact: true }).click();
  await expect(page.getByRole("region", { name: "MCP server memory" })).toContainText("memory__open_nodes");
});
