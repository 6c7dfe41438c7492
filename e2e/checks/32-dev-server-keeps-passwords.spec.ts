import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { findFreePort } from "../../lib/server/testing/free-port";
import { copyProject } from "../support/copy-project";

// `npm run dev` printed every server action with its arguments: the first administrator's password
// (createFirstAdminAction) and every added user's (addUserAction) in the terminal. Here the
// development server runs from a copy of the project on an empty in-memory database; the first
// administrator is created through the setup page and a second user through the admin page, as a
// person would; neither password appears in anything the server printed or wrote to its logs.
test.skip(!!process.env.DATABASE_URL, "once is enough: the development server runs on the embedded database");
test.setTimeout(600_000);

const ADMIN = { name: "Ada", email: "ada@dev-secrets.test", password: `first-admin-${crypto.randomUUID()}` };
const USER = { name: "Bo", email: "bo@dev-secrets.test", password: `added-user-${crypto.randomUUID()}` };

/** Every file under a folder (the development build's logs among them). */
function listFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

test("the development server prints no password it was given through a server action", async ({
  browser,
}) => {
  const project = copyProject("dev-secrets-");
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  const {
    DATABASE_URL: _url,
    PGLITE_DATA_DIR: _dir,
    NODE_ENV: _mode,
    PLAYGROUND_ADMIN_EMAIL: _email,
    PLAYGROUND_ADMIN_PASSWORD: _password,
    ...inherited
  } = process.env;
  const server: ChildProcess = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "dev", "-p", String(port)],
    {
      cwd: project,
      env: {
        ...inherited,
        NEXT_TELEMETRY_DISABLED: "1",
        PGLITE_DATA_DIR: "memory://",
        NODE_ENV: "development",
      },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  for (const stream of [server.stdout, server.stderr]) {
    stream?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
  }
  try {
    await expect.poll(() => output.includes("Ready in"), { timeout: 120_000 }).toBe(true);
    // The first request to a page compiles it (minutes on a busy machine): compile each before the browser waits.
    for (const route of ["/setup", "/admin", "/"]) {
      await fetch(`${base}${route}`, { redirect: "manual", signal: AbortSignal.timeout(400_000) });
    }
    const context = await browser.newContext({ baseURL: base, storageState: { cookies: [], origins: [] } });
    const page = await context.newPage();

    await page.goto("/setup", { timeout: 180_000 });
    await page.getByLabel("Your name").fill(ADMIN.name);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Create the administrator" }).click();
    await expect(page.getByRole("heading", { name: "Playground" })).toBeVisible({ timeout: 180_000 });

    await page.goto("/admin", { timeout: 180_000 });
    const form = page.getByRole("form", { name: "Add a user" });
    await form.getByLabel("Name").fill(USER.name);
    await form.getByLabel("Email").fill(USER.email);
    await form.getByLabel("Password").fill(USER.password);
    await form.getByRole("button", { name: "Add user" }).click();
    await expect(page.getByText(`Added ${USER.email}.`)).toBeVisible({ timeout: 60_000 });
    // The actions ran (the server logged their requests); the absence below means something.
    expect(output).toMatch(/POST \/setup|POST \/admin/);
    await context.close();

    for (const secret of [ADMIN.password, USER.password]) {
      expect(output.includes(secret), "the terminal shows a password").toBe(false);
      // What the development build writes beside the terminal (its log of browser and server messages).
      for (const file of listFiles(path.join(project, ".next"))) {
        if (!/log/i.test(file) || statSync(file).size > 50 * 1024 * 1024) continue;
        expect(readFileSync(file, "utf8").includes(secret), `${file} holds a password`).toBe(false);
      }
    }
  } finally {
    await test.info().attach("dev server output", { body: output, contentType: "text/plain" });
    if (server.pid) process.kill(-server.pid, "SIGKILL");
    rmSync(path.dirname(project), { recursive: true, force: true });
  }
});
