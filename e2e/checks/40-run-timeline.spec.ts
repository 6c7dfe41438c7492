import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { loadScenario, startRunOverApi, waitForStatus } from "../pages/api";
import { analyzeWithAxe, screenshotOf } from "../support/budget";

/** The timeline's drawn pieces carry their story as accessible names (components/run/run-timeline.tsx). */
const picture = (page: import("@playwright/test").Page) =>
  page.getByRole("region", { name: /^Timeline picture/ });

test("the fourteen reads are drawn as two waves of 8 and 6, export as a PNG twice the picture's size, and pass axe", async ({
  page,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, loadScenario("fourteen-reads-cap-eight.json"));
  await waitForStatus(request, runId, "COMPLETED");
  await page.goto(`/runs/${runId}`);
  const timeline = picture(page);
  await expect(
    timeline.getByRole("img", { name: /^Step 1: read_file #\d+, wave 1, lane \d+: ok/ }),
  ).toHaveCount(8);
  await expect(
    timeline.getByRole("img", { name: /^Step 1: read_file #\d+, wave 2, lane \d+: ok/ }),
  ).toHaveCount(6);

  // Focus tells the bar's story under the picture, for a keyboard as for a pointer.
  await timeline.getByRole("img", { name: /read_file #13,/ }).focus();
  await expect(page.getByRole("status", { name: "Timeline details" })).toHaveText(
    /^Step 1: read_file #13, wave 2, lane 6: ok/,
  );

  const svg = timeline.locator("svg");
  const size = {
    width: Number(await svg.getAttribute("width")),
    height: Number(await svg.getAttribute("height")),
  };
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download PNG" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`run-${runId}-timeline.png`);
  const png = readFileSync(await download.path());
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  // IHDR: width and height, big-endian, right after the signature and the chunk's length and type.
  expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual({
    width: size.width * 2,
    height: size.height * 2,
  });
  await testInfo.attach("timeline.png", { body: png, contentType: "image/png" });

  const [svgDownload] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download SVG" }).click(),
  ]);
  const svgText = readFileSync(await svgDownload.path(), "utf8");
  expect(svgText).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(svgText).toContain("fill:");

  const trace = await request.get(`/api/runs/${runId}/trace`);
  expect(trace.status()).toBe(200);
  const spans = (await trace.json()).resourceSpans[0].scopeSpans[0].spans as Array<{ name: string }>;
  expect(spans.filter((span) => span.name === "tool_call").length).toBeGreaterThanOrEqual(14);

  const results = await analyzeWithAxe(page);
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
  await testInfo.attach("run page with timeline", {
    body: await screenshotOf(page),
    contentType: "image/png",
  });
});

test("a waiting run's gap grows while nobody decides, and a phone scrolls the picture inside its box", async ({
  page,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    decisions: [],
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/runs/${runId}`);
  const wait = picture(page).getByRole("img", { name: /waiting for a person, .* so far$/ });
  await expect(wait).toHaveCount(1);
  const waitedMs = async () => {
    const label = (await wait.getAttribute("aria-label")) ?? "";
    const match = /waiting for a person, ([\d.]+) (ms|s|min)/.exec(label);
    if (!match) return -1;
    const value = Number(match[1]);
    return match[2] === "ms" ? value : match[2] === "s" ? value * 1000 : value * 60_000;
  };
  const first = await waitedMs();
  await expect.poll(waitedMs, { timeout: 15_000 }).toBeGreaterThan(first);

  // The page never scrolls sideways; the picture does, inside its own box.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  const box = picture(page);
  expect(await box.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  await testInfo.attach("waiting run at 390 px", {
    body: await screenshotOf(page),
    contentType: "image/png",
  });
  await page.emulateMedia({ colorScheme: "dark" });
  await testInfo.attach("timeline, dark", { body: await screenshotOf(box), contentType: "image/png" });
});

test("the insights page charts where approvals wait, each chart beside its numbers and a CSV of them", async ({
  page,
  request,
}, testInfo) => {
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    decisions: [],
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  await page.goto("/insights?range=24h");
  await expect(page.getByRole("heading", { name: "Insights", level: 1 })).toBeVisible();
  const byTool = page.getByRole("table", { name: "Time to decision, per tool" });
  await expect(byTool.getByRole("row").filter({ hasText: "write_file" })).toHaveCount(1);
  await expect(
    page.getByRole("img", { name: /per gated tool \(the numbers are in the table beside it\)/ }),
  ).toBeVisible();

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "CSV of time to decision, per tool" }).click(),
  ]);
  expect(readFileSync(await download.path(), "utf8").split("\n")[0]).toBe(
    "tool,waits,expired,decisions,p50Ms,p90Ms,maxMs",
  );

  const results = await analyzeWithAxe(page);
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await testInfo.attach("insights at 390 px", { body: await screenshotOf(page), contentType: "image/png" });
});
