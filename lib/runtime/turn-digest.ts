/**
 * The turn digest of docs/decisions.md#the-turn-digest: the one function that binds a decision to the
 * exact pending turn an operator saw. Used by the side that renders the turn
 * and by the side that verifies a decision; no other implementation exists.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { ToolCall } from "./types";

/**
 * Canonical JSON text of `value`: object keys sorted by UTF-16 code unit
 * order at every depth, no whitespace, array order kept, primitives encoded
 * by `JSON.stringify`. Otherwise as `JSON.stringify`: object keys whose value
 * is `undefined`, a function or a symbol are dropped, such array elements
 * become `null`, non-finite numbers become `null`, `toJSON` is honoured.
 * Throws a `TypeError` for a cyclic value, a `bigint`, or a top-level value
 * with no JSON form (`undefined`, a function, a symbol).
 */
export function canonicalJson(value: unknown): string {
  const encoded = encodeCanonical(value, new Set());
  if (encoded === undefined) {
    throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
  }
  return encoded;
}

function encodeCanonical(value: unknown, ancestors: Set<object>): string | undefined {
  if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    return encodeCanonical((value as { toJSON: () => unknown }).toJSON(), ancestors);
  }
  if (typeof value !== "object" || value === null) {
    // Strings, numbers, booleans, null; undefined/functions/symbols give undefined; bigint throws.
    return JSON.stringify(value) as string | undefined;
  }
  if (ancestors.has(value)) {
    throw new TypeError("canonicalJson: cannot encode a cyclic value");
  }
  ancestors.add(value);
  let encoded: string;
  if (Array.isArray(value)) {
    encoded = `[${value.map((element) => encodeCanonical(element, ancestors) ?? "null").join(",")}]`;
  } else {
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const member = encodeCanonical((value as Record<string, unknown>)[key], ancestors);
      if (member !== undefined) {
        members.push(`${JSON.stringify(key)}:${member}`);
      }
    }
    encoded = `{${members.join(",")}}`;
  }
  ancestors.delete(value);
  return encoded;
}

/** What the digest covers of a call: a tool defined elsewhere adds the fingerprint of its definition. */
export type DigestedCall = Pick<ToolCall, "id" | "name" | "arguments" | "batchIndex"> & {
  toolFingerprint?: string;
};

/**
 * The turn digest: lowercase hex SHA-256 of
 * `canonicalJson(calls.map(c => ({ id, name, arguments, batchIndex, toolFingerprint })))`
 * (`toolFingerprint` only for a call of a tool defined elsewhere, such as an
 * MCP server's: the approval is bound to the tool's definition too),
 * where `arguments` is the canonical JSON string of the parsed raw arguments
 * (so key order and whitespace in the model's text do not matter), or the raw
 * string unchanged when it does not parse as JSON. Order of `calls` matters.
 * Nothing else is hashed: no transcript, counters or timestamps.
 *
 * Note: numbers are compared after parsing, so raw arguments differing only in
 * number spelling ("1.0" vs "1", or integers beyond 2^53 that round equal)
 * give the same digest — they are the same arguments to every tool.
 */
export function computeTurnDigest(calls: ReadonlyArray<DigestedCall>): string {
  const canonicalCalls = calls.map((call) => ({
    id: call.id,
    name: call.name,
    arguments: canonicalizeRawArguments(call.arguments),
    batchIndex: call.batchIndex,
    // Absent for the playground's own tools, so their digests are what they always were.
    toolFingerprint: call.toolFingerprint,
  }));
  return sha256Hex(canonicalJson(canonicalCalls));
}

/**
 * Lowercase hex SHA-256 of a text's UTF-8 bytes, computed on the spot. Not Web
 * Crypto's `subtle.digest`: that answers through a thread pool and the event
 * loop, which cost a decision 3–10 ms now and then (its p99) between reading
 * the run and claiming it, for a hash of a few hundred bytes.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * The digest of one call (a turn of that call alone): the audit keeps it for
 * a gate's arguments as shown and, when an approver changed them, as edited.
 */
export function computeCallDigest(call: DigestedCall): string {
  return computeTurnDigest([call]);
}

function canonicalizeRawArguments(raw: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  return canonicalJson(parsed);
}

/**
 * Compares a submitted digest with the expected one. False when `submitted`
 * is missing or its length differs; otherwise compares every character, in
 * time that depends only on the length, so timing reveals no matching prefix.
 */
export function digestsEqual(submitted: string | null | undefined, expected: string): boolean {
  if (typeof submitted !== "string" || submitted.length !== expected.length) {
    return false;
  }
  let difference = 0;
  for (let index = 0; index < expected.length; index += 1) {
    difference |= submitted.charCodeAt(index) ^ expected.charCodeAt(index);
  }
  return difference === 0;
}
