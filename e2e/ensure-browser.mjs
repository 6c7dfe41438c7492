// Makes sure Playwright has a Chromium to drive before the e2e suite starts:
// the system one where Debian's package is installed, otherwise Playwright's own
// (downloaded once; machines without internet must install `chromium` instead).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium } from "@playwright/test";

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

if (existsSync(SYSTEM_CHROMIUM)) process.exit(0);
if (existsSync(chromium.executablePath())) process.exit(0);

console.error("No Chromium found: installing Playwright's Chromium (one time)...");
const install = spawnSync("npx", ["playwright", "install", "chromium"], { stdio: "inherit" });
if (install.status !== 0) {
  console.error(
    "Could not install Playwright's Chromium. Install a system Chromium (Debian: apt-get install chromium) and run again.",
  );
  process.exit(install.status ?? 1);
}
