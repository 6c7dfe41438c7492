// `npm run -s playground -- run <scenario.json> [--db DIR]`: runs a scenario
// headless and prints its run report (docs/run-report.md) as JSON on stdout, and nothing
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
import { checkScenarioModel } from "@/lib/server/config/model-endpoints";
import { createModelForScenario } from "@/lib/server/models/create-model-for-scenario";
import { FolderInUseError } from "../db/folder-in-use-error";
import {
  comparePolicies,
  InvalidScenarioError,
  isRuntimeError,
  parseScenarioJson,
  runScenarioHeadless,
} from "../lib/runtime";
import { createMemoryRunHost } from "../lib/runtime/testing/memory-run-host";
import { checkScenarioMcpServers } from "../lib/server/mcp/mcp-servers";
import { createMcpToolPreparer } from "../lib/server/mcp/mcp-tool-definitions";
import packageJson from "../package.json" with { type: "json" };
import { isCommand, USAGE, usageOf } from "./cli-usage";
import { describeExtraArguments } from "./extra-arguments";
import {
  cliMcpConnections,
  cliMcpServers,
  cliModelEndpoints,
  cliModelsAndMcp,
  closeCliMcpConnections,
} from "./models-and-mcp";
import { type PolicyBackend, PolicyUsageError, runPolicyCommand } from "./policy-command";
import { createServerClient, type ServerClient, ServerRequestError } from "./server-client";

function fail(message: string, exitCode: number): never {
  process.stderr.write(`playground: ${message}\n`);
  process.exit(exitCode);
}

/** Refuses positional arguments a command does not take, naming them, with that command's usage. */
function refuseExtra(command: string, words: string, extra: readonly string[]): void {
  if (extra.length > 0) fail(`${describeExtraArguments(words, extra)}\n${usageOf(command)}`, 2);
}

async function main() {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: {
        db: { type: "string" };
        help: { type: "boolean"; short: "h" };
        version: { type: "boolean" };
        role: { type: "string" };
        name: { type: "string" };
        "password-env": { type: "string" };
        server: { type: "string" };
        email: { type: "string" };
        shadow: { type: "boolean" };
        since: { type: "string" };
        "older-than": { type: "string" };
        "dry-run": { type: "boolean" };
        out: { type: "string" };
        tool: { type: "string" };
        run: { type: "string"; multiple: true };
      };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      options: {
        db: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
        role: { type: "string" },
        name: { type: "string" },
        "password-env": { type: "string" },
        server: { type: "string" },
        email: { type: "string" },
        shadow: { type: "boolean" },
        since: { type: "string" },
        "older-than": { type: "string" },
        "dry-run": { type: "boolean" },
        out: { type: "string" },
        tool: { type: "string" },
        run: { type: "string", multiple: true },
      },
      allowPositionals: true,
    });
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, 2);
  }
  const [command, scenarioPath, ...extra] = parsed.positionals;
  if (parsed.values.version) {
    process.stdout.write(`${packageJson.version}\n`);
    return;
  }
  if (parsed.values.help || command === "help") {
    // `help user`, `user --help`, `user add --help`: that command's usage; alone, the whole usage.
    const [topic, ...rest] = command === "help" ? [scenarioPath, ...extra] : [command];
    if (topic !== undefined && !isCommand(topic))
      fail(`unknown command ${JSON.stringify(topic)}\n${USAGE}`, 2);
    if (command === "help" && topic !== undefined) refuseExtra("help", `help ${topic}`, rest);
    // Asked for, it is the output (`--help | less`); a usage printed for bad usage goes to stderr.
    process.stdout.write(`${topic === undefined ? USAGE : usageOf(topic)}\n`);
    return;
  }
  if (parsed.values.server !== undefined && parsed.values.db !== undefined)
    fail("--server and --db: give one of them", 2);
  // PLAYGROUND_URL says where the app is for the commands that can ask it; --db, or a command that
  // works in this process (run, compare, retention), goes on without it.
  const server =
    parsed.values.server ??
    (parsed.values.db === undefined ? process.env.PLAYGROUND_URL || undefined : undefined);
  if (command === "user" || command === "token" || command === "account") {
    // Loaded only here: a headless run needs no sign-in code, and it is most of the start-up time.
    const [{ manageAccounts, openDatabaseAccounts, serverAccounts }, { AccountError }, { logToStderr }] =
      await Promise.all([
        import("./manage-accounts"),
        import("../lib/server/auth/accounts"),
        import("../lib/server/ops/logger"),
      ]);
    // better-auth's lines go through the server's logger (lib/server/auth/auth-log.ts): not onto stdout here.
    logToStderr();
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
  if (command === "policy") {
    const input = {
      positionals: parsed.positionals,
      shadow: parsed.values.shadow === true,
      since: parsed.values.since,
      tool: parsed.values.tool,
      runs: parsed.values.run,
      readFile: (path: string) => readFileSync(path, "utf8"),
      now: new Date(),
    };
    const onError = (error: unknown): never => {
      if (error instanceof PolicyUsageError) return fail(error.message, 2);
      if (isRuntimeError(error) || isExpectedFailure(error)) return fail(error.message, 1);
      throw error;
    };
    if (server !== undefined) {
      const client = connectToServer(server);
      const backend: PolicyBackend = {
        publish: (document, mode) => client.request("POST", "/api/policies", { document, mode }),
        backtest: (document, since, filter) =>
          client.request("POST", "/api/policies/backtest", {
            document,
            since: since.toISOString(),
            ...filter,
          }),
      };
      process.stdout.write(await runPolicyCommand(input, backend).catch(onError));
      return;
    }
    const handle = await openAppDatabase(parsed.values.db, `playground policy ${scenarioPath ?? ""}`.trim());
    const { publishPolicy, backtestCandidate } = await import("../lib/server/policies/policies");
    // The app's own database: whoever can open it is its operator, as for the account commands.
    const backend: PolicyBackend = {
      publish: (document, mode) =>
        publishPolicy(handle.db, { id: "cli", name: "operator (command line)" }, { document, mode }),
      backtest: (document, since, filter) =>
        backtestCandidate(handle.db, { document, since, ...filter }, cliMcpServers().servers),
    };
    try {
      process.stdout.write(await runPolicyCommand(input, backend));
    } catch (error) {
      await handle.close();
      onError(error);
    }
    await handle.close();
    return;
  }
  if (command === "export") {
    const runId = scenarioPath;
    if (!runId) fail(usageOf(command), 2);
    refuseExtra(command, `${command} ${runId}`, extra);
    const exported =
      server !== undefined
        ? await exportFromServer(server, runId)
        : await exportFromDatabase(parsed.values.db, runId);
    if (!exported) fail(`no run ${runId} ${server !== undefined ? `on ${server}` : "in this database"}`, 1);
    process.stdout.write(`${JSON.stringify(exported.scenario, null, 2)}\n`);
    for (const note of exported.notes) process.stderr.write(`note: ${note}\n`);
    return;
  }
  if (command === "archive" || command === "unarchive" || command === "delete") {
    const runId = scenarioPath;
    if (!runId) fail(usageOf(command), 2);
    refuseExtra(command, `${command} ${runId}`, extra);
    const outcome =
      server !== undefined
        ? await tidyOnServer(server, command, runId)
        : await tidyInDatabase(parsed.values.db, command, runId);
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
    return;
  }
  if (command === "retention") {
    if (parsed.values.server !== undefined)
      fail("retention works on the database itself: give DATABASE_URL or --db, not --server", 2);
    refuseExtra(command, command, parsed.positionals.slice(1));
    process.stdout.write(`${JSON.stringify(await retainEvents(parsed.values), null, 2)}\n`);
    return;
  }
  if (command !== "run" && command !== "compare") {
    fail(command === undefined ? USAGE : `unknown command ${JSON.stringify(command)}\n${USAGE}`, 2);
  }
  if (parsed.values.server !== undefined) {
    fail(
      "run and compare run the scenario in this process, not in the app at --server; to start a run in the app, POST it to /api/runs",
      2,
    );
  }
  if (!scenarioPath) fail(usageOf(command), 2);
  refuseExtra(command, `${command} ${scenarioPath}`, extra);

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
      ? await Promise.all([import("../db/client"), import("@/lib/server/runs/run-service")])
      : null;
  const handle = database
    ? await database[0].openDatabase(
        process.env.DATABASE_URL
          ? database[0].databaseOptionsFromEnv()
          : { dataDir: parsed.values.db, command: `playground ${command} ${scenarioPath}` },
      )
    : null;
  try {
    const host =
      database && handle
        ? database[1].createRunService(handle, { log, ...cliModelsAndMcp() })
        : createInMemoryHost(log);
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

type Tidying = "archive" | "unarchive" | "delete";

/** Archive, unarchive or delete through the app's API, as the token's owner (their starter's or an admin's). */
async function tidyOnServer(url: string, command: Tidying, runId: string): Promise<unknown> {
  const route = `/api/runs/${encodeURIComponent(runId)}${command === "delete" ? "" : "/archive"}`;
  try {
    return await connectToServer(url).request(command === "archive" ? "POST" : "DELETE", route);
  } catch (error) {
    if (error instanceof ServerRequestError) fail(error.message, 1);
    throw error;
  }
}

/** Archive, unarchive or delete on the database itself: no sign-in there, so recorded with no actor. */
async function tidyInDatabase(folder: string | undefined, command: Tidying, runId: string): Promise<unknown> {
  if (!/^[0-9a-f-]{36}$/i.test(runId)) fail(`no run ${runId} in this database`, 1);
  const { archiveRun, deleteRun, RunHousekeepingError } = await import("../lib/server/runs/run-housekeeping");
  const handle = await openAppDatabase(folder, `playground ${command} ${runId}`);
  let outcome: unknown;
  try {
    outcome =
      command === "delete"
        ? await deleteRun(handle.db, runId, null)
        : await archiveRun(handle.db, runId, command === "archive", null);
  } catch (error) {
    await handle.close();
    if (RunHousekeepingError.isInstance(error)) fail(error.message, 1);
    throw error;
  }
  await handle.close();
  return outcome;
}

/** `retention`: the runs' export and report written out, then their event partitions dropped (docs/housekeeping.md#retention). */
async function retainEvents(values: {
  db?: string;
  "older-than"?: string;
  "dry-run"?: boolean;
  out?: string;
}): Promise<unknown> {
  if (values["older-than"] === undefined)
    fail(
      `retention: --older-than is required: how old a finished run must be, like 90d\n${usageOf("retention")}`,
      2,
    );
  const olderThan = await import("@/lib/server/runs/event-retention").then(({ olderThanSchema }) =>
    olderThanSchema.safeParse(values["older-than"]),
  );
  if (!olderThan.success)
    fail(`retention: ${olderThan.error.issues[0]?.message}\n${usageOf("retention")}`, 2);
  if (!values.out) fail(`retention: --out DIR names where the runs' exports go\n${usageOf("retention")}`, 2);
  const [{ applyEventRetention }, { createRunService }] = await Promise.all([
    import("@/lib/server/runs/event-retention"),
    import("@/lib/server/runs/run-service"),
  ]);
  const handle = await openAppDatabase(values.db, "playground retention");
  try {
    const service = createRunService(handle, { log: () => {}, ...cliModelsAndMcp() });
    return await applyEventRetention(handle.db, service, {
      olderThanDays: olderThan.data,
      outDir: values.out,
      dryRun: values["dry-run"] ?? false,
      now: new Date(),
    });
  } finally {
    await handle.close();
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
  const { createRunService } = await import("@/lib/server/runs/run-service");
  const handle = await openAppDatabase(folder, `playground export ${runId}`);
  try {
    return /^[0-9a-f-]{36}$/i.test(runId)
      ? await createRunService(handle, { log: () => {}, ...cliModelsAndMcp() }).exportScenario(runId)
      : null;
  } finally {
    await handle.close();
  }
}

/** The database, and the MCP servers' connections (a stdio server's process ends with its connection). */
async function closeAll(handle: { close(): Promise<void> } | null) {
  await closeCliMcpConnections();
  await handle?.close();
}

/** A host over the in-memory store, with the operator's real models: a headless run needs nothing else. */
function createInMemoryHost(log: (message: string, detail?: Record<string, unknown>) => void) {
  const modelEndpoints = cliModelEndpoints();
  // The operator's MCP servers (PLAYGROUND_MCP_SERVERS), as the server uses them.
  const mcpServers = cliMcpServers();
  return createMemoryRunHost({
    createModel: (scenario) => createModelForScenario(scenario, modelEndpoints),
    checkScenario: (scenario) => {
      checkScenarioModel(scenario, modelEndpoints);
      checkScenarioMcpServers(scenario, mcpServers);
    },
    prepareTools: createMcpToolPreparer(mcpServers, cliMcpConnections()),
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
