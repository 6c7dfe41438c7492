import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { productionStart, SERVER_ENTRY, SERVER_NODE_FLAGS } from "./production-start";

const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
  .scripts;

describe("the server's Node flags", () => {
  // What serves people and agents (npm start), drives runs beside it (npm run worker) and times
  // them (npm run bench, whose servers run in its own process) sizes V8's helpers the same way.
  it.each(["start", "worker", "bench"])("npm run %s starts Node with them", (name) => {
    const command = scripts[name] ?? "";
    expect(command.startsWith(`node ${SERVER_NODE_FLAGS.join(" ")} `)).toBe(true);
  });

  it("npm start runs the app's server under them, as the suites' servers do", () => {
    expect(scripts.start).toBe(`node ${SERVER_NODE_FLAGS.join(" ")} ${SERVER_ENTRY}`);
    const { command, args } = productionStart(3000, ["--keepAliveTimeout", "1000"]);
    expect(command).toBe(process.execPath);
    expect(args).toEqual([...SERVER_NODE_FLAGS, SERVER_ENTRY, "-p", "3000", "--keepAliveTimeout", "1000"]);
  });

  it("this Node accepts them, on its command line and in NODE_OPTIONS", () => {
    // A misspelt flag stops Node before it runs anything ("bad option"), so every server would fail to start.
    expect(
      execFileSync(process.execPath, [...SERVER_NODE_FLAGS, "-e", "process.stdout.write('ran')"], {
        encoding: "utf8",
      }),
    ).toBe("ran");
    expect(
      execFileSync(process.execPath, ["-e", "process.stdout.write('ran')"], {
        encoding: "utf8",
        env: { ...process.env, NODE_OPTIONS: SERVER_NODE_FLAGS.join(" ") },
      }),
    ).toBe("ran");
  });
});
