import { expect, test } from "@playwright/test";
import { getView } from "./pages/api";
import { PlaygroundPage } from "./pages/playground-page";

const contiguous = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

test("reloading mid-run, and losing the connection, the view catches up without gaps or duplicates", async ({
  page,
  request,
}, testInfo) => {
  const resumeHeaders: string[] = [];
  page.on("request", async (request) => {
    if (!request.url().includes("/events")) return;
    const lastEventId = (await request.allHeaders())["last-event-id"];
    resumeHeaders.push(`${request.url().split("/events")[1]} ${lastEventId ?? "-"}`);
  });

  // What actually arrived on the wire, across reconnects (Chromium reports each SSE message).
  let receivedIds: number[] = [];
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  cdp.on("Network.eventSourceMessageReceived", (message) => {
    if (message.eventName === "message") receivedIds.push(Number(message.eventId));
  });

  const run = await new PlaygroundPage(page).startPreset("slow-waves-for-live-view");
  await expect(run.call(1, "slow_fetch", 0)).toHaveAccessibleName(/: ok$/);
  await run.expectStatus("Running");

  // A reload renders the stored events and streams from the last one it rendered.
  receivedIds = [];
  await page.reload();
  await run.expectStatus("Running");
  await expect(page.getByText("Live", { exact: true })).toBeVisible();

  // The server drops the stream (a restart, a proxy timeout): the browser reconnects with Last-Event-ID.
  const dropped = await request.post("/api/faults/streams");
  expect((await dropped.json()).dropped).toBeGreaterThan(0);

  await run.expectStatus("Completed", 30_000);
  const view = await getView(request, run.runId);
  expect(await run.eventLogSeqs()).toEqual(contiguous(view.lastSeq));
  // Since the reload: every event after the rendered one exactly once, in order, across the drop.
  const first = receivedIds[0] ?? 0;
  expect(first).toBeGreaterThan(1);
  expect(receivedIds).toEqual(contiguous(view.lastSeq).slice(first - 1));
  await run.screenshot("caught up after reload", testInfo);
  // After the reload the stream starts after the rendered seq; after the drop, from Last-Event-ID.
  expect(resumeHeaders[0]).toMatch(/^\?after=\d+ -$/);
  expect(resumeHeaders.some((entry) => /^\?after=\d+ [1-9]\d*$/.test(entry))).toBe(true);
});
