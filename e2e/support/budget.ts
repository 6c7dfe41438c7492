import AxeBuilder from "@axe-core/playwright";
import { type Locator, type Page, test } from "@playwright/test";

/**
 * What one step of a spec may take on a busy 2-core machine (load 5–17 was reported), added to the
 * running test's budget when the step begins. A test's budget is then the config's base (page loads
 * and clicks) plus what its heavy steps need, so a spec that runs axe six times is given six axe
 * budgets instead of sharing one flat 30 s with its page loads. These are ceilings for a step that
 * is making progress, not pauses: every wait still ends on an outcome, and a step that hangs still
 * fails, just later.
 */
export const STEP_BUDGET_MS = {
  /** The production server (`npm start`) of the suite's build, with an in-memory PGlite to migrate (e2e/support/production-server.ts). */
  serverStart: 90_000,
  /** axe-core over a whole page: it walks every node and computes every colour contrast. */
  axe: 45_000,
  /** A full-page screenshot, encoded as PNG. */
  screenshot: 15_000,
  /** A browser context of its own, signed in through the sign-in page. */
  signIn: 30_000,
} as const;

export type HeavyStep = keyof typeof STEP_BUDGET_MS;

/**
 * Gives the current test the budget of `count` steps of this kind on top of what it has. Outside a
 * test (a global setup, a script) it does nothing.
 */
export function allowFor(step: HeavyStep, count = 1): void {
  let info: ReturnType<typeof test.info>;
  try {
    info = test.info();
  } catch {
    return;
  }
  // 0 means "no limit" (--timeout=0, or a debugging session): leave it so.
  if (info.timeout === 0) return;
  info.setTimeout(info.timeout + STEP_BUDGET_MS[step] * count);
}

/** axe-core's WCAG 2.1 A/AA checks over the page, with an axe budget added to the test's. */
export async function analyzeWithAxe(page: Page) {
  allowFor("axe");
  return new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
}

/** A full-page PNG of the page (or a part of it), with a screenshot budget added to the test's. */
export async function screenshotOf(target: Page | Locator, options: { path?: string } = {}): Promise<Buffer> {
  allowFor("screenshot");
  return "goto" in target ? target.screenshot({ fullPage: true, ...options }) : target.screenshot(options);
}
