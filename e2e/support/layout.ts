import { expect, type Page } from "@playwright/test";
import { analyzeWithAxe } from "./budget";

/**
 * The page is no wider than the screen (a failure names what sticks out past the right edge,
 * outermost first) and axe finds no WCAG 2.1 A/AA violation on it.
 */
export async function expectFitsAndPassesAxe(page: Page, label: string): Promise<void> {
  const overflowing = await page.evaluate(() =>
    document.documentElement.scrollWidth <= window.innerWidth
      ? []
      : [...document.querySelectorAll("body *")]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .slice(0, 5)
          .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`),
  );
  expect(overflowing, `${label} is wider than the screen`).toEqual([]);
  const results = await analyzeWithAxe(page);
  expect(
    results.violations.map((violation) => ({
      rule: violation.id,
      targets: violation.nodes.map((node) => node.target),
    })),
    label,
  ).toEqual([]);
}
