import path from "node:path";

/** The administrator the e2e server seeds on its empty database (PLAYGROUND_ADMIN_EMAIL/PASSWORD). */
export const E2E_ADMIN = { email: "admin@e2e.test", password: "e2e-admin-password" };

/** Where the sign-in setup keeps the administrator's browser session for every demo. */
export const ADMIN_STORAGE_STATE = path.join("test-results", ".auth", "admin.json");
