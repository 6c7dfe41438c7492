import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startRunOverApi } from "../pages/api";
import { RunPage } from "../pages/run-page";

/**
 * A demo to watch: slow reads fill the timeline wave by wave, the run stops at a gated write, a
 * person approves it, the run ends. `npm run demo:video` records it (RECORD_DEMO=1, with the
 * system's ffmpeg) into docs/images/run-demo.webm, the README's moving picture; in the suite it
 * runs without a camera and checks the same story.
 */
const recording = process.env.RECORD_DEMO === "1";
test.use(
  recording
    ? { video: { mode: "on", size: { width: 1280, height: 800 } }, viewport: { width: 1280, height: 800 } }
    : {},
);

const slowRead = (name: string) => ({
  name,
  description: `Read ${name} slowly`,
  resourceClass: "pure_read",
  effect: "READ",
  approval: "never",
  delayMs: 900,
  result: { ok: true },
});

test("a run fills its timeline wave by wave, waits at a gated write, and ends once a person approves", async ({
  page,
  request,
}) => {
  const runId = await startRunOverApi(request, {
    name: "Six slow reads in two waves, then a gated write",
    limits: { maxParallelToolCalls: 3 },
    tools: [slowRead("scan")],
    workspace: { "notes.md": "# notes\n" },
    model: {
      kind: "scripted",
      turns: [
        { calls: Array.from({ length: 6 }, () => ({ name: "scan", arguments: {} })) },
        { calls: [{ name: "write_file", arguments: { path: "notes.md", content: "# notes\nscanned\n" } }] },
        { calls: [{ name: "finish", arguments: { summary: "scanned and noted" } }] },
      ],
    },
  });
  const run = new RunPage(page);
  await page.goto(`/runs/${runId}`);
  const timeline = page.getByRole("region", { name: /^Timeline picture/ });
  // The picture grows as the run goes: the second wave's bars appear after the first's.
  await expect(timeline.getByRole("img", { name: /wave 2, lane 3: ok/ })).toHaveCount(1, { timeout: 30_000 });
  await expect(timeline.getByRole("img", { name: /waiting for a person, .* so far$/ })).toHaveCount(1);
  await run.approve();
  await run.expectStatus("Completed");
  await expect(timeline.getByRole("img", { name: /waited .* for a person, ended by decision/ })).toHaveCount(
    1,
  );
  await expect(
    timeline.getByRole("img", { name: /write_file #0, barrier, after its approval: ok/ }),
  ).toHaveCount(1);

  if (recording) {
    // Held for the viewer only: the recording ends on the finished picture.
    await page.waitForTimeout(1_500);
    const video = page.video();
    await page.close();
    const target = path.join(process.cwd(), "docs", "images", "run-demo.webm");
    mkdirSync(path.dirname(target), { recursive: true });
    if (video) copyFileSync(await video.path(), target);
  }
});
