import { expect, type Page } from "@playwright/test";
import { RunPage } from "./run-page";

/** The playground at `/`: choose a preset, edit the scenario, start a run. */
export class PlaygroundPage {
  constructor(readonly page: Page) {}

  async open(presetId?: string) {
    await this.page.goto(presetId ? `/?preset=${presetId}` : "/");
    await expect(this.page.getByRole("heading", { name: "Playground" })).toBeVisible();
  }

  /**
   * The scenario editor's content element (CodeMirror, a contenteditable): `fill` replaces the whole
   * text; read it with `toContainText`, not `toHaveValue`. Only the lines near the visible part are in
   * the page, so look for text near the top.
   */
  get editor() {
    return this.page.getByRole("textbox", { name: "Scenario JSON" });
  }

  get startButton() {
    return this.page.getByRole("button", { name: "Start run" });
  }

  get problems() {
    return this.page.getByRole("list", { name: "Scenario problems" });
  }

  /** The button on a problem that selects its place in the editor, by the problem's path ("" for the root). */
  problemButton(path: string) {
    const escaped = (path || "(root)").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return this.problems.getByRole("button", { name: new RegExp(`^Go to line \\d+: ${escaped}$`) });
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
