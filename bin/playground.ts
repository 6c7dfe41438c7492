// `npm run -s playground -- run <scenario.json> [--db DIR]`: runs a scenario
// headless and prints its run report (SPEC §8) as JSON on stdout, and nothing
// else there; progress and errors go to stderr. `user …` and `token …`
// manage who can sign in and the API tokens (bin/manage-accounts.ts).
//
// Database: DATABASE_URL when set; else the PGlite folder given by --db; else
// no database at all (the in-memory store), so a headless run never needs the dev
// server's embedded database folder. The account commands and `export` work on the
// app's own database, or, with --server URL (or PLAYGROUND_URL) and an API token in
// PLAYGROUND_TOKEN, on a running app through its HTTP API: an embedded folder admits
// one process at a time (db/folder-lock.ts), and while the app runs, it is the app's.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { FolderInUseError } from "../db/folder-in-use-error";
import {
  comparePolicies,
  InvalidScenarioError,
  isRuntimeError,
  parseScenarioJson,
  runScenarioHeadless,
} from "../lib/runtime";
import { createMemoryRunHost } from "../lib/runtime/testing/memory-run-host";
import { createModelForScenario } from "../lib/server/create-model-for-scenario";
import { getModelEndpoints } from "../lib/server/get-model-endpoints";
import { getMcpConnections, getMcpServers } from "../lib/server/mcp/get-mcp-servers";
import { checkScenarioMcpServers } from "../lib/server/mcp/mcp-servers";
import { createMcpToolPreparer } from "../lib/server/mcp/mcp-tool-definitions";
import { checkScenarioModel } from "../lib/server/model-endpoints";
import { ACCOUNT_USAGE } from "./account-usage";
import { createServerClient, type ServerClient, ServerRequestError } from "./server-client";

const USAGE = `usage: npm run -s playground -- <command>
  run <scenario.json> [--db DIR]
  export <runId> [--db DIR]   a stored run as a scenario that replays it (stdout)
  compare <scenario.json>     runs it under both execution policies; prints both runs' figures
${ACCOUNT_USAGE}
The account commands and export act on the app's database (DATABASE_URL, or the embedded
folder, which they cannot open while the app runs), on --db DIR, or with --server URL
(or PLAYGROUND_URL) on a running app, as the admin whose API token is in PLAYGROUND_TOKEN.`;

function fail(message: string, exitCode: number): never {
  process.stderr.write(`playground: ${message}\n`);
  process.exit(exitCode);
}

async function main() {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: {
        db: { type: "string" };
        help: { type: "boolean" };
        role: { type: "string" };
        name: { type: "string" };
        "password-env": { type: "string" };
        server: { type: "string" };
        email: { type: "string" };
      };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      options: {
        db: { type: "string" },
        help: { type: "boolean" },
        role: { type: "string" },
        name: { type: "string" },
        "password-env": { type: "string" },
        server: { type: "string" },
        email: { type: "string" },
      },
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
  const server = parsed.values.server ?? (process.env.PLAYGROUND_URL || undefined);
  if (server !== undefined && parsed.values.db !== undefined) fail("--server and --db: give one of them", 2);
  if (command === "user" || command === "token" || command === "account") {
    // Loaded only here: a headless run needs no sign-in code, and it is most of the start-up time.
    const [{ manageAccounts, openDatabaseAccounts, serverAccounts }, { AccountError }] = await Promise.all([
      import("./manage-accounts"),
      import("../lib/server/auth/accounts"),
    ]);
    const arguments_ = {
      positionals: parsed.positionals,
      role: parsed.values.role,
      name: parsed.values.name,
      passwordEnv: parsed.values["password-env"],
      email: parsed.values.email,
    };
    const failOnAccountError = (error: unknown): never => {
      if (AccountError.isInstance(error) || isExpectedFailure(error)) fail(error.message, 1);
      // A usage error.
      return fail(error instanceof Error ? error.message : String(error), 2);
    };
    if (server !== undefined) {
      const output = await manageAccounts(serverAccounts(connectToServer(server)), arguments_).catch(
        failOnAccountError,
      );
      process.stdout.write(output);
      return;
    }
    // The app's own database (as `npm run dev` would open it), unless --db names another folder.
    const handle = await openAppDatabase(
      parsed.values.db,
      `playground ${command} ${scenarioPath ?? ""}`.trim(),
    );
    try {
      process.stdout.write(await manageAccounts(await openDatabaseAccounts(handle), arguments_));
    } catch (error) {
      await handle.close();
      failOnAccountError(error);
    }
    await handle.close();
    return;
  }
  if (command === "export") {
    const runId = scenarioPath;
    if (!runId || extra.length > 0) fail(USAGE, 2);
    const exported =
      server !== undefined
        ? await exportFromServer(server, runId)
        : await exportFromDatabase(parsed.values.db, runId);
    if (!exported) fail(`no run ${runId} ${server !== undefined ? `on ${server}` : "in this database"}`, 1);
    process.stdout.write(`${JSON.stringify(exported.scenario, null, 2)}\n`);
    for (const note of exported.notes) process.stderr.write(`note: ${note}\n`);
    return;
  }
  if (server !== undefined) {
    fail(
      "run and compare run the scenario in this process; to start a run in the app, POST it to /api/runs",
      2,
    );
  }
  if ((command !== "run" && command !== "compare") || !scenarioPath || extra.length > 0) fail(USAGE, 2);

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

  const log = (message: string, detail?: Record<string, unknown>) =>
    process.stderr.write(`${message}${detail ? ` ${JSON.stringify(detail)}` : ""}\n`);
  // With nowhere to keep the run, it runs on the in-memory store: the same runtime and report,
  // without starting a database (which would be most of the time a headless run takes).
  // The database code (drivers, PGlite's WebAssembly) is loaded only when a database is asked for.
  const database =
    process.env.DATABASE_URL || parsed.values.db
      ? await Promise.all([import("../db/client"), import("../lib/server/run-service")])
      : null;
  const handle = database
    ? await database[0].openDatabase(
        process.env.DATABASE_URL
          ? { url: process.env.DATABASE_URL }
          : { dataDir: parsed.values.db, command: `playground ${command} ${scenarioPath}` },
      )
    : null;
  try {
    const host = database && handle ? database[1].createRunService(handle, { log }) : createInMemoryHost(log);
    if (command === "compare") {
      process.stderr.write(`running "${scenario.name}" under barriers, then legacy…\n`);
      const comparison = await comparePolicies(host, scenario);
      process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
      process.stderr.write(
        `barriers: ${comparison.barriers.completions} completions; legacy: ${comparison.legacy.completions}\n`,
      );
    } else {
      process.stderr.write(`running "${scenario.name}"…\n`);
      const report = await runScenarioHeadless(host, scenario);
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      process.stderr.write(`run ${report.runId}: ${report.status}\n`);
    }
  } catch (error) {
    await closeAll(handle);
    failOnKnownError(error, scenarioPath);
  }
  await closeAll(handle);
}

/** The app's database (DATABASE_URL, or its embedded folder), or the PGlite folder `--db` names. */
async function openAppDatabase(folder: string | undefined, command: string) {
  const { databaseOptionsFromEnv, openDatabase } = await import("../db/client");
  return openDatabase({ ...(folder ? { dataDir: folder } : databaseOptionsFromEnv()), command });
}

/** A running app's API, as the person whose token is in PLAYGROUND_TOKEN. */
function connectToServer(url: string): ServerClient {
  const token = process.env.PLAYGROUND_TOKEN;
  if (!token) {
    fail(
      `--server ${url}: put an API token in PLAYGROUND_TOKEN (never on the command line; an admin's, for the account commands; create one on the app's /account page)`,
      2,
    );
  }
  try {
    return createServerClient({ url, token });
  } catch (error) {
    return fail((error as Error).message, 2);
  }
}

type ExportedScenario = { scenario: unknown; notes: string[] };

async function exportFromServer(url: string, runId: string): Promise<ExportedScenario | null> {
  try {
    return await connectToServer(url).request<ExportedScenario>(
      "GET",
      `/api/runs/${encodeURIComponent(runId)}/scenario?notes=1`,
    );
  } catch (error) {
    if (error instanceof ServerRequestError && error.status === 404) return null;
    throw error;
  }
}

async function exportFromDatabase(
  folder: string | undefined,
  runId: string,
): Promise<ExportedScenario | null> {
  const { createRunService } = await import("../lib/server/run-service");
  const handle = await openAppDatabase(folder, `playground export ${runId}`);
  try {
    return /^[0-9a-f-]{36}$/i.test(runId)
      ? await createRunService(handle, { log: () => {} }).exportScenario(runId)
      : null;
  } finally {
    await handle.close();
  }
}

/** The database, and the MCP servers' connections (a stdio server's process ends with its connection). */
async function closeAll(handle: { close(): Promise<void> } | null) {
  await getMcpConnections().close();
  await handle?.close();
}

/** A host over the in-memory store, with the operator's real models: a headless run needs nothing else. */
function createInMemoryHost(log: (message: string, detail?: Record<string, unknown>) => void) {
  const modelEndpoints = getModelEndpoints();
  // The operator's MCP servers (PLAYGROUND_MCP_SERVERS), as the server uses them.
  const mcpServers = getMcpServers();
  return createMemoryRunHost({
    createModel: (scenario) => createModelForScenario(scenario, modelEndpoints),
    checkScenario: (scenario) => {
      checkScenarioModel(scenario, modelEndpoints);
      checkScenarioMcpServers(scenario, mcpServers);
    },
    prepareTools: createMcpToolPreparer(mcpServers, getMcpConnections()),
    log,
  });
}

/**
 * Exits with a clear message for an error we expect (a bad scenario: 2; a runtime refusal, a
 * database folder another process holds, a server's refusal: 1); rethrows the rest.
 */
function failOnKnownError(error: unknown, scenarioPath: string): never {
  if (isExpectedFailure(error)) fail(error.message, 1);
  if (InvalidScenarioError.isInstance(error)) {
    const lines = error.issues.map((issue) => `  ${issue.path || "(root)"}: ${issue.message}`);
    fail(`${scenarioPath} is not a valid scenario:\n${lines.join("\n")}`, 2);
  }
  if (isRuntimeError(error)) fail(`${error.code}: ${error.message}`, 1);
  throw error;
}

/** A database folder another process holds, or a server that refused or could not be reached. */
function isExpectedFailure(error: unknown): error is Error {
  return FolderInUseError.isInstance(error) || error instanceof ServerRequestError;
}

main().catch((error) => {
  if (isExpectedFailure(error)) fail(error.message, 1);
  fail(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 1);
});
