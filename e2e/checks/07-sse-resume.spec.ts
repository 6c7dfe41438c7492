import { expect, test } from "@playwright/test";
import { getView, loadScenario, startRunOverApi } from "../pages/api";
import { RunPage } from "../pages/run-page";

const contiguous = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

test("reloading mid-run, and losing every stream, the view catches up without gaps or duplicates and goes on live", async ({
  page,
  request,
}, testInfo) => {
  // Where each stream the page opened starts (`?after=`): the page resumes by itself from the seq it holds.
  const streamStarts: number[] = [];
  page.on("request", (streamRequest) => {
    const url = new URL(streamRequest.url());
    if (url.pathname.endsWith("/events")) streamStarts.push(Number(url.searchParams.get("after")));
  });

  // The slow waves, with the progress save of the second step behind an approval: the run cannot end
  // before this test approves it, however long a reload takes on a busy machine.
  const scenario = loadScenario("rules/slow-waves-for-live-view.json") as { tools: Array<{ name: string }> };
  const runId = await startRunOverApi(request, {
    ...scenario,
    tools: scenario.tools.map((tool) =>
      tool.name === "save_progress" ? { ...tool, approval: "always" } : tool,
    ),
  });
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  await expect(run.call(1, "slow_fetch", 0)).toHaveAccessibleName(/: ok$/);
  const midRun = /^(Running|Waiting for approval)$/;
  await run.expectStatus(midRun);

  // A reload renders the stored events and streams from the last one it rendered.
  streamStarts.length = 0;
  await page.reload();
  await run.expectStatus(midRun);
  const live = page.getByText("Live", { exact: true });
  await expect(live).toBeVisible();
  expect(streamStarts[0]).toBeGreaterThan(1);

  // The server drops every stream (a restart, a proxy timeout): the page reopens from what it holds.
  const opened = streamStarts.length;
  const dropped = await request.post("/api/faults/streams");
  expect((await dropped.json()).dropped).toBeGreaterThan(0);
  await expect.poll(() => streamStarts.length).toBeGreaterThan(opened);
  expect(streamStarts[opened]).toBeGreaterThanOrEqual(streamStarts[0] ?? 0);

  // Live again: the gate shows up, and once approved the run finishes on screen without another reload.
  await run.expectStatus("Waiting for approval", 30_000);
  await run.approve();
  await run.expectStatus("Completed", 30_000);
  const view = await getView(request, runId);
  // Every stored event exactly once, in order.
  expect(await run.eventLogSeqs()).toEqual(contiguous(view.lastSeq));
  await run.screenshot("caught up after reload and drop", testInfo);
});
