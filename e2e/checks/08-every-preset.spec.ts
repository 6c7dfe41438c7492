import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { PlaygroundPage } from "../pages/playground-page";

// The preset files; a vitest checks that the playground's catalog lists exactly these.
const PRESETS = ["lib/scenarios", "lib/scenarios/rules"].flatMap((folder) =>
  readdirSync(folder)
    .filter((file) => file.endsWith(".json"))
    .map((file) => ({
      id: file.replace(/\.json$/, ""),
      scenario: JSON.parse(readFileSync(path.join(folder, file), "utf8")) as {
        decisions?: Array<{ approve: boolean }>;
      },
    })),
);

// Done when: a person can start every preset, watch it run, and decide every barrier.
for (const preset of PRESETS) {
  test(`preset ${preset.id} runs to the end, deciding every barrier from the run page`, async ({ page }) => {
    const decisions = (preset.scenario.decisions ?? []).slice();
    const playground = new PlaygroundPage(page);
    await playground.open(preset.id);
    await expect(page.getByText("Valid scenario")).toBeVisible();
    const run = await playground.startRun();
    const digest = run.approvalPanel.locator(".digest code");
    for (;;) {
      await expect(run.status).toHaveText(/Waiting for approval|Completed|Failed|Cancelled/, {
        timeout: 20_000,
      });
      if ((await run.status.textContent()) !== "Waiting for approval") break;
      const decided = await digest.textContent();
      const decision = decisions.shift() ?? { approve: true };
      if (decision.approve) await run.approve();
      else await run.deny("not this one");
      // What follows is a different turn or the end, never the same turn again.
      await expect.poll(() => digest.allTextContents(), { timeout: 20_000 }).not.toEqual([decided]);
    }
    await expect(run.status).toHaveText("Completed");
  });
}
