import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import { screenshotOf } from "../support/budget";

/** The live run view at `/runs/[id]`. */
export class RunPage {
  constructor(readonly page: Page) {}

  get runId(): string {
    const match = /\/runs\/([0-9a-f-]{36})/.exec(this.page.url());
    if (!match?.[1]) throw new Error(`not on a run page: ${this.page.url()}`);
    return match[1];
  }

  get heading() {
    return this.page.getByRole("heading", { level: 1 });
  }

  get status() {
    return this.page.getByRole("status", { name: "Run status" });
  }

  async expectStatus(text: string | RegExp, timeout = 15_000) {
    await expect(this.status).toHaveText(text, { timeout });
  }

  get approvalPanel() {
    return this.page.getByRole("region", { name: "Approval needed" });
  }

  /** The page's own alerts (Next's route announcer is an alert too, outside main). */
  get alert() {
    return this.page.getByRole("main").getByRole("alert");
  }

  step(number: number) {
    return this.page.getByRole("article", { name: `Step ${number}` });
  }

  plan(stepNumber: number) {
    return this.page.getByRole("list", { name: `Plan of step ${stepNumber}` });
  }

  /** A call's row: its accessible name is "<tool> call <batchIndex>: <state>". */
  call(stepNumber: number, name: string, batchIndex: number) {
    return this.page
      .getByRole("table", { name: `Calls of step ${stepNumber}` })
      .getByRole("row", { name: new RegExp(`^${name} call ${batchIndex}:`) });
  }

  async expectCallState(stepNumber: number, name: string, batchIndex: number, state: string) {
    await expect(this.call(stepNumber, name, batchIndex)).toHaveAccessibleName(
      `${name} call ${batchIndex}: ${state}`,
    );
  }

  async approve() {
    await this.approvalPanel.getByRole("button", { name: "Approve", exact: true }).click();
  }

  /** Denies with a reply to the model. */
  async deny(reason: string) {
    await this.approvalPanel.getByRole("textbox", { name: "Reply to the model instead" }).fill(reason);
    await this.approvalPanel.getByRole("button", { name: "Deny and reply" }).click();
  }

  /** The seqs listed in the event log, in page order. */
  async eventLogSeqs(): Promise<number[]> {
    await this.page.getByText(/^Event log/).click();
    const seqs = await this.page
      .getByRole("list", { name: "Event log" })
      .getByRole("listitem")
      .evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-seq"))));
    await this.page.getByText(/^Event log/).click();
    return seqs;
  }

  async screenshot(
    name: string,
    testInfo: { attach(name: string, options: { body: Buffer; contentType: string }): Promise<void> },
  ) {
    const body = await screenshotOf(this.page);
    await testInfo.attach(name, { body, contentType: "image/png" });
    // To look at the pages without the HTML report: E2E_SCREENSHOT_DIR=/some/dir.
    const folder = process.env.E2E_SCREENSHOT_DIR;
    if (folder) writeFileSync(path.join(folder, `${name.replaceAll(/\W+/g, "-")}.png`), body);
  }
}
