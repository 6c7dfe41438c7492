// `npm run playground -- run <scenario.json> [--db DIR]`: runs a scenario
// headless and prints its run report (SPEC §8) as JSON on stdout, and nothing
// else there; progress and errors go to stderr.
//
// Database: DATABASE_URL when set; else the PGlite folder given by --db; else
// a throwaway in-memory database, so the CLI never locks the dev server's
// embedded database folder.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { openDatabase } from "../db/client";
import { InvalidScenarioError, isRuntimeError, parseScenarioJson } from "../lib/runtime";
import { runScenarioHeadless } from "../lib/server/run-scenario-headless";
import { createRunService } from "../lib/server/run-service";

const USAGE = "usage: npm run playground -- run <scenario.json> [--db DIR]";

function fail(message: string, exitCode: number): never {
  process.stderr.write(`playground: ${message}\n`);
  process.exit(exitCode);
}

async function main() {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: { db: { type: "string" }; help: { type: "boolean" } };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      options: { db: { type: "string" }, help: { type: "boolean" } },
      allowPositionals: true,
    });
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, 2);
  }
  const [command, scenarioPath, ...extra] = parsed.positionals;
  if (parsed.values.help) {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  if (command !== "run" || !scenarioPath || extra.length > 0) fail(USAGE, 2);

  let text: string;
  try {
    text = readFileSync(scenarioPath, "utf8");
  } catch (error) {
    fail(`cannot read ${scenarioPath}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, 2);
  }
  let scenario: ReturnType<typeof parseScenarioJson>;
  try {
    scenario = parseScenarioJson(text);
  } catch (error) {
    failOnKnownError(error, scenarioPath);
  }

  const handle = await openDatabase(
    process.env.DATABASE_URL
      ? { url: process.env.DATABASE_URL }
      : { dataDir: parsed.values.db ?? "memory://" },
  );
  try {
    const service = createRunService(handle, {
      log: (message, detail) =>
        process.stderr.write(`${message}${detail ? ` ${JSON.stringify(detail)}` : ""}\n`),
    });
    process.stderr.write(`running "${scenario.name}"…\n`);
    const report = await runScenarioHeadless(service, scenario);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`run ${report.runId}: ${report.status}\n`);
  } catch (error) {
    await handle.close();
    failOnKnownError(error, scenarioPath);
  }
  await handle.close();
}

/** Exits with a clear message for an error we expect (a bad scenario: 2; a runtime refusal: 1); rethrows the rest. */
function failOnKnownError(error: unknown, scenarioPath: string): never {
  if (InvalidScenarioError.isInstance(error)) {
    const lines = error.issues.map((issue) => `  ${issue.path || "(root)"}: ${issue.message}`);
    fail(`${scenarioPath} is not a valid scenario:\n${lines.join("\n")}`, 2);
  }
  if (isRuntimeError(error)) fail(`${error.code}: ${error.message}`, 1);
  throw error;
}

main().catch((error) =>
  fail(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 1),
);
