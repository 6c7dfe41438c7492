import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { ASYNC_CONTEXT_FRAME_FLAG, lacksAsyncContextFrame } from "./async-context-frame";

describe("whether the server starts again with AsyncLocalStorage's frame", () => {
  it.each([
    ["22.23.5", [], "", true],
    ["23.11.0", ["--v8-pool-size=0"], "", true],
    ["22.23.5", [ASYNC_CONTEXT_FRAME_FLAG], "", false],
    ["22.23.5", [], `--max-old-space-size=512 ${ASYNC_CONTEXT_FRAME_FLAG}`, false],
    // An operator who wants the old AsyncLocalStorage back says so, and is not overruled.
    ["22.23.5", ["--no-experimental-async-context-frame"], "", false],
    // Node 24 has the frame already, under an option of another name.
    ["24.11.1", [], "", false],
  ])("Node %s with %j and NODE_OPTIONS %j: %s", (version, execArgv, nodeOptions, lacks) => {
    expect(lacksAsyncContextFrame(version, execArgv, nodeOptions)).toBe(lacks);
  });

  it("starts again in the same process with the flag, keeping its other flags and arguments", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "tp-frame-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const program = path.join(folder, "program.mjs");
    const module = path.resolve("bin/async-context-frame.ts");
    writeFileSync(
      program,
      `import { startWithAsyncContextFrame } from ${JSON.stringify(module)};
process.stdout.write("began " + process.pid + "\\n");
startWithAsyncContextFrame();
process.stdout.write(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, args: process.argv.slice(2) }));`,
    );
    const ran = spawnSync(process.execPath, ["--v8-pool-size=0", program, "-p", "3000"], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
      timeout: 30_000,
    });
    expect(ran.status).toBe(0);
    const lines = ran.stdout.trim().split("\n");
    const last = JSON.parse(lines.at(-1) ?? "{}") as { pid: number; execArgv: string[]; args: string[] };
    expect(last.args).toEqual(["-p", "3000"]);
    expect(last.execArgv).toContain("--v8-pool-size=0");
    if (lacksAsyncContextFrame(process.versions.node, [], "")) {
      // Began twice, as one process: the second time with the flag, and went on.
      expect(lines.slice(0, -1)).toEqual([`began ${last.pid}`, `began ${last.pid}`]);
      expect(last.execArgv).toContain(ASYNC_CONTEXT_FRAME_FLAG);
    } else {
      expect(lines.slice(0, -1)).toEqual([`began ${last.pid}`]);
    }
    expect(ran.stderr).toBe("");
  });
});
