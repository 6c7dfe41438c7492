import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { slowReadTool } from "../../lib/runtime/testing/scenario-fixtures";
import { getView, startRunOverApi } from "../pages/api";
import { RunPage } from "../pages/run-page";
import { RESENT_ONCE_IF_RESET } from "../support/keep-alive";
import { type ProductionServer, signInOverApi, startProductionServer } from "../support/production-server";

// Three servers in turn on one port and one database: one dies mid-wave, one comes back without
// taking runs over (so the page can be seen saying so), one takes the run over.
// The wave's reads take 30 s, and the code of the run page and of the routes it calls is loaded
// before the run starts, so the page shows them running well before they end. Beside CI's CPU hog a
// cold first page load (the page, then its view and event routes, each loaded on first request)
// outlasted 20 s reads and the run completed before the kill: the server's own view is checked just
// before it dies, so a run that ended first fails here, naming why. The run that takes over reads
// them again.
test.setTimeout(360_000);

const SLOW_WAVE = {
  name: "a wave whose server dies",
  tools: [slowReadTool(30_000)],
  model: {
    kind: "scripted",
    turns: [
      {
        calls: [
          { name: "slow_scan", arguments: {} },
          { name: "slow_scan", arguments: {} },
        ],
      },
      { calls: [{ name: "finish", arguments: { summary: "scanned" } }] },
    ],
  },
};

test("a run whose server dies mid-wave shows Recovering…, then completes, without a reload", async ({
  browser,
}, testInfo) => {
  // The three servers share a PGlite folder of their own, one process at a time: on the suite's
  // shared database the suite's own server would take the run over before the page could say so.
  const dataDir = mkdtempSync(path.join(tmpdir(), "tp-recovering-"));
  const database = { freshDatabase: true, pgliteDataDir: dataDir };
  const env = { PLAYGROUND_LEASE_MS: "3000", PLAYGROUND_RECOVERY_SWEEP_MS: "500" };
  let server: ProductionServer | undefined = await startProductionServer({ ...database, env });
  const port = server.port;
  const context = await browser.newContext({
    baseURL: server.baseURL,
    storageState: { cookies: [], origins: [] },
  });
  try {
    await signInOverApi(context.request, server.baseURL);
    // A fresh `next start` loads a route's code on its first request: that happens now, not while
    // the wave runs; and the browser has the page's scripts already.
    const page = await context.newPage();
    const nobody = crypto.randomUUID();
    await page.goto(`/runs/${nobody}`);
    for (const route of ["view", "events", "report"])
      await context.request.get(`/api/runs/${nobody}/${route}`, RESENT_ONCE_IF_RESET);
    const runId = await startRunOverApi(context.request, SLOW_WAVE);
    await page.goto(`/runs/${runId}`);
    const run = new RunPage(page);
    await run.expectCallState(1, "slow_scan", 0, "running");
    const statusBeforeKill = (await getView(context.request, runId)).status;
    expect(statusBeforeKill, "the wave must still be running when its server dies").toBe("RUNNING");

    await server.kill();
    server = await startProductionServer({
      ...database,
      port,
      env: { ...env, PLAYGROUND_BACKGROUND_WORK: "off" },
    });
    // The page reconnects by itself; once the dead worker's lease runs out it says so, and offers nothing.
    await run.expectStatus("Recovering…", 30_000);
    await expect(
      page.getByRole("status").filter({ hasText: "The server running this run stopped." }),
    ).toBeVisible();
    await expect(run.approvalPanel).toHaveCount(0);
    await run.screenshot("recovering after the server died", testInfo);

    // Killed too: a graceful stop would wait for this page's open stream.
    await server.kill();
    server = await startProductionServer({ ...database, port, env });
    await run.expectStatus("Completed", 120_000);
    await run.expectCallState(1, "slow_scan", 0, "ok");
    await run.expectCallState(1, "slow_scan", 1, "ok");
    await page.getByText(/^Event log \(\d+\)$/).click();
    await expect(page.getByRole("list", { name: "Event log" })).toContainText("run_recovered");
    await run.screenshot("completed after recovery", testInfo);
  } finally {
    await context.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
