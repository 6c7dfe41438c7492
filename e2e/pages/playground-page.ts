import { expect, type Page } from "@playwright/test";
import { RunPage } from "./run-page";

/** The playground at `/`: choose a preset, edit the scenario, start a run. */
export class PlaygroundPage {
  constructor(readonly page: Page) {}

  async open(presetId?: string) {
    await this.page.goto(presetId ? `/?preset=${presetId}` : "/");
    await expect(this.page.getByRole("heading", { name: "Playground" })).toBeVisible();
  }

  get editor() {
    return this.page.getByRole("textbox", { name: "Scenario JSON" });
  }

  get startButton() {
    return this.page.getByRole("button", { name: "Start run" });
  }

  get problems() {
    return this.page.getByRole("list", { name: "Scenario problems" });
  }

  /** Opens a preset and starts it as it is. */
  async startPreset(presetId: string): Promise<RunPage> {
    await this.open(presetId);
    return this.startRun();
  }

  /** Starts the run and waits for its page. */
  async startRun(): Promise<RunPage> {
    await this.startButton.click();
    await this.page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const run = new RunPage(this.page);
    await expect(run.heading).toBeVisible();
    return run;
  }
}
