// Adds up the JSON results of every vitest and Playwright run of .ci/run, plus
// the plain checks it ran, and prints the closing `N passed, N failed` line.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const [logDir, checksFile] = process.argv.slice(2);
let passed = 0;

// The summary names each failure and the first lines of why: a count alone leaves the next person
// to dig through the log, and only the end of a long log is sometimes kept.
const WHY_LINES = 8;

function firstLines(message) {
  return (
    String(message ?? "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the colours of a terminal report
      .replace(/\u001b\[[0-9;]*m/g, "")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .slice(0, WHY_LINES)
      .map((line) => `      ${line.slice(0, 200)}`)
      .join("\n")
  );
}

function failedPlaywrightTests(report) {
  const names = [];
  const visit = (suite, file) => {
    for (const spec of suite.specs ?? []) {
      const failedTests = spec.tests.filter((test) => test.status === "unexpected");
      if (failedTests.length === 0) continue;
      const error = failedTests.flatMap((test) => test.results ?? []).find((result) => result.error)?.error;
      names.push(`${spec.file ?? file} › ${spec.title}\n${firstLines(error?.message)}`);
    }
    for (const child of suite.suites ?? []) visit(child, suite.file ?? file);
  };
  for (const suite of report.suites ?? []) visit(suite, suite.file);
  return names;
}

function failedVitestTests(report) {
  return (report.testResults ?? []).flatMap((file) => {
    const name = path.relative(process.cwd(), file.name);
    const tests = (file.assertionResults ?? []).filter((test) => test.status === "failed");
    // A file that failed outside its tests (a hook, an import) has no failed test to name.
    if (tests.length === 0 && file.status === "failed") {
      return [`${name}\n${firstLines(file.message)}`];
    }
    return tests.map((test) => `${name} › ${test.fullName}\n${firstLines(test.failureMessages?.[0])}`);
  });
}
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
    for (const name of failedPlaywrightTests(report)) console.log(`  failed: ${name}`);
  } else {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
    for (const name of failedVitestTests(report)) console.log(`  failed: ${name}`);
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
