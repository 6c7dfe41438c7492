import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { findFreePort } from "../lib/server/testing/free-port";

// A report said: after `npm run dev` restarts with an API call as its first request, a run's page
// reloads dozens of times (Fast Refresh rebuilding, "Compiled", another GET), breaking demos that
// create runs over the API first. Here the development server runs from a copy of the project, with
// the embedded database in its default folder (./.data/pglite), its first request an API call; the
// run's page is watched while the run writes events and a file in the database folder changes
// every second. One document, no recompiles, no second fetch of the page.
test.skip(!!process.env.DATABASE_URL, "once is enough: the development server runs on the embedded database");
test.setTimeout(240_000);

const ADMIN = { email: "admin@dev-server.test", password: "dev-server-password" };
const WATCH_MS = 8_000;

/** The project's sources (what git knows, as they are now) in a temporary folder, node_modules hard-linked. */
function copyProject(): string {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), "dev-server-")), "app");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((file) => file && existsSync(file));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(file, path.join(copy, file));
  }
  execFileSync("cp", ["-al", "node_modules", path.join(copy, "node_modules")]);
  return copy;
}

test("the development server serves a run's page once, however the run and its database change", async ({
  browser,
}) => {
  const project = copyProject();
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _url, PGLITE_DATA_DIR: _dir, NODE_ENV: _mode, ...inherited } = process.env;
  const server: ChildProcess = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "dev", "-p", String(port)],
    {
      cwd: project,
      env: {
        ...inherited,
        NEXT_TELEMETRY_DISABLED: "1",
        PLAYGROUND_ADMIN_EMAIL: ADMIN.email,
        PLAYGROUND_ADMIN_PASSWORD: ADMIN.password,
        NODE_ENV: "development",
      },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines: string[] = [];
  for (const stream of [server.stdout, server.stderr]) {
    stream?.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  }
  try {
    await expect.poll(() => lines.some((line) => line.includes("Ready in")), { timeout: 120_000 }).toBe(true);

    // The first request is an API call: sign in, then start a run that keeps writing events.
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify(ADMIN),
    });
    expect(signIn.status).toBe(200);
    const cookies = signIn.headers.getSetCookie().map((cookie) => cookie.split(";")[0] ?? "");
    const api = (method: string, route: string, body?: unknown) =>
      fetch(`${base}${route}`, {
        method,
        headers: { "content-type": "application/json", origin: base, cookie: cookies.join("; ") },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // About a minute of events: longer than the first compile of the page.
    const turns = Array.from({ length: 240 }, (_, index) => ({
      delayMs: 250,
      calls: [{ name: "memory_set", arguments: { key: `k${index}`, value: `v${index}` } }],
    }));
    const started = await api("POST", "/api/runs", {
      name: "keeps writing",
      model: {
        kind: "scripted",
        turns: [...turns, { calls: [{ name: "finish", arguments: { summary: "done" } }] }],
      },
    });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const lastSeq = async () =>
      ((await (await api("GET", `/api/runs/${runId}/view`)).json()) as { lastSeq: number }).lastSeq;

    const context = await browser.newContext({ baseURL: base });
    await context.addCookies(
      cookies.map((cookie) => {
        const [name = "", ...value] = cookie.split("=");
        return { name, value: value.join("="), url: base };
      }),
    );
    const page = await context.newPage();
    let documents = 0;
    page.on("request", (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) documents += 1;
    });
    const probe = path.join(project, ".data", "pglite", "probe.json");
    await page.goto(`/runs/${runId}`, { timeout: 180_000 });
    const seqBefore = await lastSeq();
    const linesBefore = lines.length;
    for (let second = 0; second < WATCH_MS / 1_000; second += 1) {
      writeFileSync(probe, JSON.stringify({ second }));
      await page.waitForTimeout(1_000);
    }
    const later = lines.slice(linesBefore);
    // The run really changed while the page was watched; otherwise this proves nothing.
    expect((await lastSeq()) - seqBefore).toBeGreaterThan(5);
    expect(documents).toBe(1);
    // A loop shows as the server compiling again and serving the page again. (The page's own
    // "[Fast Refresh] rebuilding" messages are no sign: the first compile of each route it calls
    // prints one, a couple of times in CI.)
    expect(later.filter((line) => /Compiled in|GET \/runs\//.test(line))).toEqual([]);
    await context.close();
  } finally {
    if (server.pid) process.kill(-server.pid, "SIGKILL");
    rmSync(path.dirname(project), { recursive: true, force: true });
  }
});
