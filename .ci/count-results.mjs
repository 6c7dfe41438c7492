// Adds up the JSON results of every vitest and Playwright run of .ci/run, plus
// the plain checks it ran, and prints the closing `N passed, N failed` line.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const [logDir, checksFile] = process.argv.slice(2);
let passed = 0;
let failed = 0;

for (const file of readdirSync(logDir)
  .filter((name) => name.endsWith(".json"))
  .sort()) {
  const report = JSON.parse(readFileSync(path.join(logDir, file), "utf8"));
  if (report.stats) {
    // Playwright: expected = passed, unexpected = failed; a flaky test passed on retry.
    passed += report.stats.expected + report.stats.flaky;
    failed += report.stats.unexpected;
    console.log(
      `${file}: ${report.stats.expected + report.stats.flaky} passed, ${report.stats.unexpected} failed`,
    );
  } else {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
  }
}

if (checksFile && existsSync(checksFile)) {
  for (const line of readFileSync(checksFile, "utf8").split("\n").filter(Boolean)) {
    const [status, name] = line.split(" ");
    if (status === "ok") passed += 1;
    else failed += 1;
    console.log(`check ${name}: ${status}`);
  }
}

// A run in which nothing reported a pass did not test anything: that is a failure, not a green.
if (passed === 0) {
  failed += 1;
  console.log("no test or check passed: nothing was tested");
}

console.log(`${passed} passed, ${failed} failed`);
