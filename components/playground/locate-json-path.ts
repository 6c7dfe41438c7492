import { jsonLanguage } from "@codemirror/lang-json";

/** Where something sits in JSON text: characters `from` to `to`, starting on 1-based `line`. */
export interface JsonLocation {
  from: number;
  to: number;
  line: number;
}

type JsonNode = ReturnType<typeof jsonLanguage.parser.parse>["topNode"];
type PathSegment = string | number;

const VALUE_NODES = new Set(["Object", "Array", "String", "Number", "True", "False", "Null"]);

/** The message prefix `checkScenarioText` gives a JSON syntax error. */
const SYNTAX_ERROR_PREFIX = "Not valid JSON: ";

/**
 * The value at `path` (as `formatIssuePath` writes it: `model.turns[0].calls[1].name`,
 * `workspace["../x"]`, "" for the whole document), or null when the text has no value there.
 */
export function locateJsonPath(text: string, path: string): JsonLocation | null {
  const segments = parsePath(path);
  if (!segments) return null;
  const found = findDeepest(text, segments);
  return found?.depth === segments.length ? toLocation(text, found.node.from, found.node.to) : null;
}

/**
 * Where JSON.parse stopped, from the position or line and column its message gives; when the
 * message gives neither (V8's "Unexpected token" form, Safari), where a strict JSON parser stops.
 */
export function locateJsonSyntaxError(text: string, message: string): JsonLocation | null {
  const offset = offsetInMessage(text, message) ?? firstSyntaxError(text);
  if (offset === null) return null;
  const from = Math.min(offset, text.length);
  return toLocation(text, from, Math.min(from + 1, text.length));
}

/**
 * Where a scenario problem points: a syntax error's position, or the value at its path. A missing
 * key's path has no value, so it points at the nearest enclosing value that does exist.
 */
export function locateScenarioIssue(
  text: string,
  issue: { path: string; message: string },
): JsonLocation | null {
  if (issue.path === "" && issue.message.startsWith(SYNTAX_ERROR_PREFIX)) {
    return locateJsonSyntaxError(text, issue.message.slice(SYNTAX_ERROR_PREFIX.length));
  }
  const segments = parsePath(issue.path);
  const found = segments && findDeepest(text, segments);
  return found ? toLocation(text, found.node.from, found.node.to) : null;
}

/** Reads a path back into keys and indexes; null when it is not one `formatIssuePath` could write. */
function parsePath(path: string): PathSegment[] | null {
  const segment = /\.?([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  const segments: PathSegment[] = [];
  while (segment.lastIndex < path.length) {
    const match = segment.exec(path);
    if (!match) return null;
    const [, name, index, quoted] = match;
    if (name !== undefined) segments.push(name);
    else if (index !== undefined) segments.push(Number(index));
    else if (quoted !== undefined) {
      const key = parseJsonString(quoted);
      if (key === null) return null;
      segments.push(key);
    }
  }
  return segments;
}

/** The deepest value along `segments` that the text has, and how many segments led to it. */
function findDeepest(text: string, segments: PathSegment[]): { node: JsonNode; depth: number } | null {
  const root = valuesIn(jsonLanguage.parser.parse(text).topNode)[0];
  if (!root) return null;
  let node = root;
  let depth = 0;
  for (const segment of segments) {
    const child = typeof segment === "number" ? elementAt(node, segment) : propertyValue(text, node, segment);
    if (!child) break;
    node = child;
    depth += 1;
  }
  return { node, depth };
}

function elementAt(node: JsonNode, index: number): JsonNode | undefined {
  return node.name === "Array" ? valuesIn(node)[index] : undefined;
}

/** The value of `key` in an object; the last one when a key repeats, as JSON.parse keeps the last. */
function propertyValue(text: string, node: JsonNode, key: string): JsonNode | undefined {
  if (node.name !== "Object") return undefined;
  let value: JsonNode | undefined;
  for (const property of node.getChildren("Property")) {
    const name = property.getChild("PropertyName");
    if (name && parseJsonString(text.slice(name.from, name.to)) === key) value = valuesIn(property)[0];
  }
  return value;
}

function valuesIn(node: JsonNode): JsonNode[] {
  const values: JsonNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (VALUE_NODES.has(child.name)) values.push(child);
  }
  return values;
}

function parseJsonString(quoted: string): string | null {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** V8 says "at position 42" (and, lately, "(line 3 column 5)"); Firefox says "at line 3 column 5". */
function offsetInMessage(text: string, message: string): number | null {
  const position = /\bat position (\d+)/.exec(message);
  if (position) return Number(position[1]);
  const lineAndColumn = /\bline (\d+) column (\d+)/.exec(message);
  if (!lineAndColumn) return null;
  const lines = text.split("\n");
  const lineIndex = Math.min(Number(lineAndColumn[1]), lines.length) - 1;
  const lineStart = lines.slice(0, lineIndex).reduce((offset, line) => offset + line.length + 1, 0);
  return lineStart + Math.min(Number(lineAndColumn[2]) - 1, lines[lineIndex]?.length ?? 0);
}

function firstSyntaxError(text: string): number | null {
  let offset: number | null = null;
  jsonLanguage.parser.parse(text).iterate({
    enter(node) {
      if (offset !== null) return false;
      if (node.type.isError) offset = node.from;
      return undefined;
    },
  });
  return offset;
}

function toLocation(text: string, from: number, to: number): JsonLocation {
  let line = 1;
  for (let index = text.indexOf("\n"); index !== -1 && index < from; index = text.indexOf("\n", index + 1)) {
    line += 1;
  }
  return { from, to, line };
}
