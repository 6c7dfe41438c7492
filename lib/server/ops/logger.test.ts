import { afterEach, describe, expect, it, vi } from "vitest";
import { getLogger, logToStderr, replaceLogger } from "./logger";

describe("the process's logger in a command-line program", () => {
  let restore = () => {};
  afterEach(() => {
    restore();
    vi.restoreAllMocks();
  });

  it("writes its lines to stderr, leaving stdout to the program's output", () => {
    restore = replaceLogger(getLogger());
    const toStderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);

    logToStderr();
    getLogger().error({ code: "database_unavailable" }, "a line for the operator");

    const written = toStderr.mock.calls.map(([chunk]) => String(chunk)).join("");
    expect(JSON.parse(written)).toMatchObject({
      level: "error",
      code: "database_unavailable",
      msg: "a line for the operator",
    });
  });
});
