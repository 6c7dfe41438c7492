import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { findFreePort } from "../../lib/server/testing/free-port";
import { startRunOverApi, waitForStatus } from "../pages/api";
import { E2E_ADMIN } from "../support/accounts";
import { type ProductionServer, signInOverApi, startProductionServer } from "../support/production-server";

// The app server holds its embedded database folder for as long as it runs. The account
// commands (docs/sign-in.md), the worker and a second server pointed at the same folder are refused at once, naming
// the folder and the server; the CLI does the same work through the server's HTTP API instead; and
// after the server stops (or is killed) the folder opens again with everything in it.
test.skip(!!process.env.DATABASE_URL, "a rule of the embedded database: once, on PGlite, is enough");
test.setTimeout(300_000);

/** This process's environment without a database setting of its own, plus `extra`. */
const environment = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const { DATABASE_URL: _url, PGLITE_DATA_DIR: _folder, ...inherited } = process.env;
  return { ...inherited, NEXT_TELEMETRY_DISABLED: "1", ...extra };
};

function playground(args: string[], env: Record<string, string> = {}) {
  return spawnSync(
    process.execPath,
    ["--conditions=react-server", "bin/run-bundled.mjs", "bin/playground.ts", ...args],
    {
      encoding: "utf8",
      env: environment(env),
    },
  );
}

test("beside the running app, the CLI, the worker and a second server are refused, and the CLI works through the app's API", async () => {
  const folder = path.join(mkdtempSync(path.join(tmpdir(), "tp-app-folder-")), "pglite");
  let server: ProductionServer | undefined = await startProductionServer({
    freshDatabase: true,
    pgliteDataDir: folder,
  });
  const api = await playwrightRequest
    .newContext({ baseURL: server.baseURL, storageState: { cookies: [], origins: [] } })
    .catch(async (error: unknown) => {
      await server?.stop();
      throw error;
    });
  try {
    await expect.poll(async () => (await api.get("/api/health")).status(), { timeout: 120_000 }).toBe(200);
    const { pid } = JSON.parse(readFileSync(`${folder}.lock.json`, "utf8")) as { pid: number };
    const holder = `The embedded database ${folder} is in use by process ${pid} (the app server`;

    // Each is refused at once, by name, and changes nothing.
    const listed = playground(["user", "list", "--db", folder]);
    expect(listed.status).toBe(1);
    expect(listed.stderr).toContain(holder);
    // The app's own address, from the port it was started on.
    expect(listed.stderr).toContain(
      `--server http://localhost:${new URL(server.baseURL).port} and an API token`,
    );
    expect(listed.stderr).not.toMatch(/\n\s+at /);

    const worker = spawnSync(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "bin/worker.ts"],
      {
        encoding: "utf8",
        env: environment({ PGLITE_DATA_DIR: folder }),
      },
    );
    expect(worker.status).toBe(1);
    expect(worker.stderr).toContain(holder);

    const secondServer = spawnSync(
      path.join("node_modules", ".bin", "next"),
      ["start", "-p", String(await findFreePort())],
      { encoding: "utf8", env: environment({ PGLITE_DATA_DIR: folder }), timeout: 120_000 },
    );
    expect(secondServer.status).toBe(1);
    expect(secondServer.stderr).toContain(holder);

    // The same commands, through the running app's HTTP API, with an admin's token.
    await signInOverApi(api, server.baseURL);
    const created = await api.post("/api/tokens", {
      data: { email: E2E_ADMIN.email, name: "cli" },
      headers: { origin: server.baseURL },
    });
    expect(created.status()).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const overHttp = (args: string[], env: Record<string, string> = {}) =>
      playground(args, { PLAYGROUND_URL: server?.baseURL ?? "", PLAYGROUND_TOKEN: token, ...env });
    const added = overHttp(["user", "add", "ada@example.com", "--role", "approver"], {
      PLAYGROUND_NEW_PASSWORD: "ada-password-1",
    });
    expect(added.stderr).toBe("");
    expect(JSON.parse(added.stdout)).toMatchObject({ email: "ada@example.com", role: "approver" });
    const adaToken = overHttp(["token", "create", "ada@example.com", "--name", "ada-bot"]);
    expect(adaToken.stdout).toMatch(/^tp_\w{20,}\n$/);
    expect(JSON.parse(overHttp(["token", "list"]).stdout)).toMatchObject([
      { name: "ada-bot", ownerEmail: "ada@example.com", role: "approver" },
      { name: "cli", ownerEmail: E2E_ADMIN.email, role: "admin" },
    ]);
    // Who may: the new approver's token is refused the admin's commands, by the server.
    const refused = playground(["user", "list", "--server", server.baseURL], {
      PLAYGROUND_TOKEN: adaToken.stdout.trim(),
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${server.baseURL} answered 403 forbidden`);

    const runId = await startRunOverApi(
      api,
      JSON.parse(readFileSync("lib/scenarios/write-then-read-back.json", "utf8")),
    );
    // At its barrier, where it stays: exported now and after the crash, the run is the same.
    await waitForStatus(api, runId, "WAITING_FOR_APPROVAL");
    const exported = overHttp(["export", runId]);
    expect(exported.status).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ model: { kind: "scripted" } });
    expect(overHttp(["token", "revoke", "ada-bot"]).stdout).toMatch(
      /^revoked ada-bot \(\w+\) of ada@example\.com\n$/,
    );

    // Killed mid-life (kill -9), the server leaves its lock behind; the next process takes it over
    // once it has gone stale, and finds everything written through the server.
    await server.kill();
    server = undefined;
    const afterCrash = playground(["user", "list", "--db", folder]);
    expect(afterCrash.status).toBe(0);
    expect(JSON.parse(afterCrash.stdout)).toMatchObject([
      { email: E2E_ADMIN.email },
      { email: "ada@example.com" },
    ]);
    const exportedAfter = playground(["export", runId, "--db", folder]);
    expect(exportedAfter.status).toBe(0);
    expect(JSON.parse(exportedAfter.stdout)).toEqual(JSON.parse(exported.stdout));
    expect(JSON.parse(playground(["token", "list", "--db", folder]).stdout)).toMatchObject([{ name: "cli" }]);
  } finally {
    await api.dispose();
    await server?.stop();
    rmSync(path.dirname(folder), { recursive: true, force: true });
  }
});
