import path from "node:path";

/** The administrator the e2e server seeds on its empty database (PLAYGROUND_ADMIN_EMAIL/PASSWORD). */
export const E2E_ADMIN = { email: "admin@e2e.test", password: "e2e-admin-password" };

/** Where the sign-in setup keeps the administrator's browser session for every spec of a lane. */
export function adminStorageState(lane: "demos" | "checks"): string {
  return path.join("test-results", ".auth", `admin-${lane}.json`);
}

/**
 * The one person the e2e server's e-mail channel is for (playwright.config.ts): e2e/43 adds them as an
 * approver and reads their mail. No other spec adds them, so no other spec's run sends mail.
 */
export const LINK_RECIPIENT = {
  name: "Lin",
  email: "lin-links@e2e.test",
  role: "approver",
  password: "lin-links-password-1",
} as const;

/**
 * The one person the e2e server's second e-mail channel, "e2e-link-alone", is for: its links decide
 * alone (linkAlone, playwright.config.ts). e2e/46 adds them and reads their mail; no other spec adds
 * them, so no other link decides without a sign-in.
 */
export const LINK_ALONE_RECIPIENT = {
  name: "Alo",
  email: "alo-link-alone@e2e.test",
  role: "approver",
  password: "alo-link-alone-password-1",
} as const;
