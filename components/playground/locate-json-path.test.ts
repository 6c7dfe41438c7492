import { describe, expect, it } from "vitest";
import { locateJsonPath, locateJsonSyntaxError, locateScenarioIssue } from "./locate-json-path";

const scenario = `${JSON.stringify(
  {
    name: "two turns",
    limits: { maxParallelToolCalls: 8 },
    model: {
      kind: "scripted",
      turns: [{ calls: [{ name: "read_file" }, { name: "write_file", arguments: { path: "a" } }] }, {}],
    },
    workspace: { "odd key": "x", 'say "hi"\\': [] },
  },
  null,
  2,
)}\n`;

function textAt(text: string, location: { from: number; to: number } | null) {
  return location && text.slice(location.from, location.to);
}

function lineOf(text: string, needle: string) {
  return text.slice(0, text.indexOf(needle)).split("\n").length;
}

describe("locateJsonPath", () => {
  it("finds a value by key, through nested objects and arrays", () => {
    const limit = locateJsonPath(scenario, "limits.maxParallelToolCalls");
    expect(textAt(scenario, limit)).toBe("8");
    expect(limit?.line).toBe(lineOf(scenario, '"maxParallelToolCalls"'));

    const name = locateJsonPath(scenario, "model.turns[0].calls[1].name");
    expect(textAt(scenario, name)).toBe('"write_file"');
    expect(name?.line).toBe(lineOf(scenario, '"write_file"'));
  });

  it("gives an object's or array's whole range", () => {
    const call = locateJsonPath(scenario, "model.turns[0].calls[1]");
    expect(JSON.parse(textAt(scenario, call) ?? "")).toEqual({
      name: "write_file",
      arguments: { path: "a" },
    });
    expect(textAt(scenario, locateJsonPath(scenario, "model.turns[1]"))).toBe("{}");
  });

  it("finds keys a path writes quoted, escapes and all", () => {
    expect(textAt(scenario, locateJsonPath(scenario, 'workspace["odd key"]'))).toBe('"x"');
    expect(textAt(scenario, locateJsonPath(scenario, 'workspace["say \\"hi\\"\\\\"]'))).toBe("[]");
  });

  it("matches a key written with escapes in the JSON text", () => {
    const text = '{ "n\\u0061me" : "escaped" }';
    expect(textAt(text, locateJsonPath(text, "name"))).toBe('"escaped"');
  });

  it("takes the last of a repeated key, the one JSON.parse keeps", () => {
    const text = '{"a": 1,\n"a": 2}';
    expect(locateJsonPath(text, "a")).toEqual({ from: 14, to: 15, line: 2 });
  });

  it("reads compact and oddly spaced JSON alike", () => {
    const text = ' \t{"a":[ 1 ,\r\n\t[ true , null ] ]}';
    expect(textAt(text, locateJsonPath(text, "a[1][1]"))).toBe("null");
  });

  it("gives the whole document for the root path", () => {
    const text = "\n  [1, 2]\n";
    expect(locateJsonPath(text, "")).toEqual({ from: 3, to: 9, line: 2 });
  });

  it("returns null where there is no such value", () => {
    expect(locateJsonPath(scenario, "model.turns[0].calls[2]")).toBeNull();
    expect(locateJsonPath(scenario, "model.missing")).toBeNull();
    expect(locateJsonPath(scenario, "name.length")).toBeNull();
    expect(locateJsonPath(scenario, "limits[0]")).toBeNull();
    expect(locateJsonPath(scenario, "model.turns.kind")).toBeNull();
    expect(locateJsonPath("", "name")).toBeNull();
  });

  it("returns null for a path it cannot read", () => {
    expect(locateJsonPath(scenario, "model..kind")).toBeNull();
    expect(locateJsonPath(scenario, "model[kind]")).toBeNull();
  });
});

describe("locateJsonSyntaxError", () => {
  const broken = '{\n  "name": "x",\n  "limits": {}\n  "model": {}\n}\n';
  const stop = broken.indexOf('"model"');

  it("uses the position V8 reports", () => {
    const message = `Expected ',' or '}' after property value in JSON at position ${stop} (line 4 column 3)`;
    expect(locateJsonSyntaxError(broken, message)).toEqual({ from: stop, to: stop + 1, line: 4 });
    expect(locateJsonSyntaxError(broken, `Unexpected token } in JSON at position ${stop}`)?.line).toBe(4);
  });

  it("uses the line and column Firefox reports", () => {
    const message =
      "JSON.parse: expected ',' or '}' after property value in object at line 4 column 3 of the JSON data";
    expect(locateJsonSyntaxError(broken, message)).toEqual({ from: stop, to: stop + 1, line: 4 });
  });

  it("finds the error itself when the message gives no position", () => {
    const text = "[\n  1,\n  ,2]";
    expect(locateJsonSyntaxError(text, `Unexpected token ',', "[1,,2]" is not valid JSON`)).toEqual({
      from: 9,
      to: 10,
      line: 3,
    });
    expect(locateJsonSyntaxError("", "Unexpected end of JSON input")).toEqual({ from: 0, to: 0, line: 1 });
  });

  it("agrees with this runtime's JSON.parse", () => {
    for (const text of [broken, "{ not json", '{"a": [1, 2', '{"a": tru}', '{\n  "a": "x\ny"}']) {
      let message = "";
      try {
        JSON.parse(text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(locateJsonSyntaxError(text, message), message).not.toBeNull();
    }
    expect(
      locateJsonSyntaxError("{ not json", "Expected property name or '}' in JSON at position 2")?.from,
    ).toBe(2);
  });
});

describe("locateScenarioIssue", () => {
  it("locates a syntax error from checkScenarioText's message", () => {
    const issue = { path: "", message: "Not valid JSON: Unexpected token in JSON at position 3" };
    expect(locateScenarioIssue("{\n ]", issue)).toEqual({ from: 3, to: 4, line: 2 });
  });

  it("locates the value at the path", () => {
    const issue = { path: "model.turns[0].calls[1].name", message: "Unknown tool" };
    expect(textAt(scenario, locateScenarioIssue(scenario, issue))).toBe('"write_file"');
  });

  it("points a missing key at the nearest value that holds it", () => {
    const issue = { path: "model.turns[1].calls", message: "Required" };
    expect(textAt(scenario, locateScenarioIssue(scenario, issue))).toBe("{}");
    expect(locateScenarioIssue(scenario, { path: "decisions", message: "Required" })?.line).toBe(1);
  });

  it("gives nothing for a path it cannot read", () => {
    expect(locateScenarioIssue(scenario, { path: "model..kind", message: "?" })).toBeNull();
  });
});
