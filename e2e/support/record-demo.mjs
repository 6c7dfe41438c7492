// `npm run demo:video`: records e2e/41's run (the timeline filling in, the approval, the end) into
// docs/images/run-demo.webm. Playwright encodes video with an ffmpeg build it downloads; where it
// cannot (these machines reach only the npm registry and apt), the system's ffmpeg stands in, put
// where Playwright looks for its own in a browsers folder of this run's.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import path from "node:path";

const require = createRequire(import.meta.url);
const browsers = JSON.parse(
  readFileSync(path.join(path.dirname(require.resolve("playwright-core")), "browsers.json"), "utf8"),
).browsers;
const revision = browsers.find((browser) => browser.name === "ffmpeg")?.revision;
const env = { ...process.env, RECORD_DEMO: "1" };
const own = path.join(
  process.env.PLAYWRIGHT_BROWSERS_PATH || path.join(homedir(), ".cache", "ms-playwright"),
  `ffmpeg-${revision}`,
  "ffmpeg-linux",
);

if (process.platform === "linux" && !existsSync(own)) {
  let system = "";
  try {
    system = execFileSync("sh", ["-c", "command -v ffmpeg"], { encoding: "utf8" }).trim();
  } catch {}
  if (!system) {
    console.error(
      "Recording needs ffmpeg: `sudo apt install ffmpeg`, or `npx playwright install ffmpeg` where Playwright can download.",
    );
    process.exit(1);
  }
  const folder = mkdtempSync(path.join(tmpdir(), "playwright-ffmpeg-"));
  mkdirSync(path.join(folder, `ffmpeg-${revision}`));
  symlinkSync(system, path.join(folder, `ffmpeg-${revision}`, "ffmpeg-linux"));
  env.PLAYWRIGHT_BROWSERS_PATH = folder;
}

const result = spawnSync(
  "npx",
  ["playwright", "test", "e2e/demos/41-demo-run-timeline-video.spec.ts", "--project=chromium"],
  {
    env,
    stdio: "inherit",
  },
);
if (result.status === 0) console.log("Recorded docs/images/run-demo.webm");
process.exit(result.status ?? 1);
