import { beforeEach } from "vitest";
import { captureLog } from "./captured-log";

// Every test's server log lines (warnings and errors: the suites' LOG_LEVEL) are kept, and printed
// only if the test fails: a passing test that provokes an error on purpose (a database gone, a
// broken token) does not print it as if something went wrong, and a failing one shows what the
// server said. A test that asserts its lines captures its own (captured-log.ts), inside this one.
beforeEach(({ onTestFailed }) => {
  const log = captureLog();
  onTestFailed(() => {
    for (const line of log.lines) process.stderr.write(`${JSON.stringify(line)}\n`);
  });
  return () => log.restore();
});
