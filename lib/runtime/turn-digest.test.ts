import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, computeTurnDigest, digestsEqual, sha256Hex } from "./turn-digest";

/** Serialises JSON with keys in reverse insertion order and indentation: same value, different text. */
function serializeScrambled(value: unknown, depth = 0): string {
  const indent = `\n${"  ".repeat(depth + 1)}`;
  if (Array.isArray(value)) {
    return `[ ${value.map((element) => serializeScrambled(element, depth + 1)).join(" , ")} ]`;
  }
  if (typeof value === "object" && value !== null) {
    const members = Object.keys(value)
      .reverse()
      .map(
        (key) =>
          `${indent}${JSON.stringify(key)} :\t${serializeScrambled((value as Record<string, unknown>)[key], depth + 1)}`,
      );
    return `{${members.join(",")} }`;
  }
  return JSON.stringify(value);
}

const argumentsArbitrary = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), {
  maxKeys: 6,
});
const callArbitrary = fc.record({
  id: fc.string({ maxLength: 8 }),
  name: fc.constantFrom("read_file", "write_file", "deploy"),
  arguments: argumentsArbitrary.map((value) => JSON.stringify(value)),
  batchIndex: fc.nat({ max: 20 }),
});

describe("canonicalJson", () => {
  it.each([
    [{ b: 1, a: [3, { d: true, c: null }] }, '{"a":[3,{"c":null,"d":true}],"b":1}'],
    [{ z: "\u00e9\n", y: undefined }, '{"z":"\u00e9\\n"}'],
    [[undefined, 1], "[null,1]"],
    ["text", '"text"'],
    [1.5, "1.5"],
    [null, "null"],
    [{ B: 1, a: 2, _: 3, "10": 4, "9": 5 }, '{"10":4,"9":5,"B":1,"_":3,"a":2}'],
  ])("encodes %j as %s", (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it("throws for values with no JSON form and for cycles", () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow("cyclic");
  });

  it("equals JSON.stringify of the same value with sorted keys (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(JSON.parse(serializeScrambled(value)))).toBe(canonicalJson(value));
      }),
    );
  });
});

describe("sha256Hex", () => {
  it("is SHA-256 of the text's UTF-8 bytes, as Node's own hash computes it (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
      }),
    );
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("computeTurnDigest", () => {
  it("matches an independently computed SHA-256 (known answer)", () => {
    const calls = [
      { id: "c1", name: "write_file", arguments: '{ "path": "a.txt",\n "content": "x" }', batchIndex: 0 },
      { id: "c2", name: "read_file", arguments: "{not json", batchIndex: 1 },
    ];
    const expectedText =
      '[{"arguments":"{\\"content\\":\\"x\\",\\"path\\":\\"a.txt\\"}","batchIndex":0,"id":"c1","name":"write_file"},' +
      '{"arguments":"{not json","batchIndex":1,"id":"c2","name":"read_file"}]';
    const expected = createHash("sha256").update(expectedText, "utf8").digest("hex");
    expect(computeTurnDigest(calls)).toBe(expected);
  });

  it("is the digest of [] for an empty turn, lowercase hex of 64 characters", () => {
    const digest = computeTurnDigest([]);
    expect(digest).toBe(createHash("sha256").update("[]").digest("hex"));
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores extra fields of the calls", () => {
    const call = { id: "c1", name: "finish", arguments: '{"summary":"s"}', batchIndex: 0 };
    expect(computeTurnDigest([{ ...call, status: "pending" } as typeof call])).toBe(
      computeTurnDigest([call]),
    );
  });

  it("is unchanged by key order and whitespace in raw arguments (property)", () => {
    fc.assert(
      fc.property(fc.array(callArbitrary, { maxLength: 4 }), (calls) => {
        const scrambled = calls.map((call) => ({
          ...call,
          arguments: serializeScrambled(JSON.parse(call.arguments)),
        }));
        expect(computeTurnDigest(scrambled)).toBe(computeTurnDigest(calls));
      }),
    );
  });

  it("changes with any id, name, argument value or batchIndex (property)", () => {
    const changeArbitrary = fc.oneof(
      fc.string({ maxLength: 8 }).map((id) => ({ field: "id" as const, value: id })),
      fc
        .constantFrom("finish", "memory_set", "read_file")
        .map((name) => ({ field: "name" as const, value: name })),
      argumentsArbitrary.map((value) => ({ field: "arguments" as const, value: JSON.stringify(value) })),
      fc.nat({ max: 20 }).map((batchIndex) => ({ field: "batchIndex" as const, value: batchIndex })),
    );
    fc.assert(
      fc.property(
        fc.array(callArbitrary, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        changeArbitrary,
        (calls, position, change) => {
          const index = position % calls.length;
          const original = calls[index];
          if (original === undefined) {
            return;
          }
          const changed = { ...original, [change.field]: change.value };
          const isSame =
            change.field === "arguments"
              ? canonicalJson(JSON.parse(original.arguments)) ===
                canonicalJson(JSON.parse(String(change.value)))
              : original[change.field] === change.value;
          fc.pre(!isSame);
          const changedCalls = calls.map((call, callIndex) => (callIndex === index ? changed : call));
          expect(computeTurnDigest(changedCalls)).not.toBe(computeTurnDigest(calls));
        },
      ),
    );
  });

  it("changes with call order", () => {
    const first = { id: "a", name: "read_file", arguments: "{}", batchIndex: 0 };
    const second = { id: "b", name: "read_file", arguments: "{}", batchIndex: 1 };
    expect(computeTurnDigest([first, second])).not.toBe(computeTurnDigest([second, first]));
  });

  it("hashes unparseable raw arguments as written", () => {
    const call = { id: "c", name: "read_file", arguments: "{oops", batchIndex: 0 };
    expect(computeTurnDigest([call])).not.toBe(computeTurnDigest([{ ...call, arguments: "{ oops" }]));
    expect(computeTurnDigest([call])).not.toBe(computeTurnDigest([{ ...call, arguments: '"{oops"' }]));
  });
});

describe("digestsEqual", () => {
  const digest = "ab".repeat(32);

  it("is true only for the identical string", () => {
    expect(digestsEqual(digest, digest)).toBe(true);
    expect(digestsEqual(`${"ab".repeat(31)}ac`, digest)).toBe(false);
    expect(digestsEqual(`c${digest.slice(1)}`, digest)).toBe(false);
    expect(digestsEqual(digest.toUpperCase(), digest)).toBe(false);
  });

  it("is false for missing or differently sized digests", () => {
    expect(digestsEqual(null, digest)).toBe(false);
    expect(digestsEqual(undefined, digest)).toBe(false);
    expect(digestsEqual("", digest)).toBe(false);
    expect(digestsEqual(digest.slice(1), digest)).toBe(false);
    expect(digestsEqual(`${digest}0`, digest)).toBe(false);
  });
});
