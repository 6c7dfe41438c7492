import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ownRecordSchema } from "./own-record-schema";
import { installValidationMessages } from "./validation-messages";

installValidationMessages();

describe("a record of names a person chose", () => {
  const schema = ownRecordSchema(z.string());

  it("keeps every own key, __proto__ and the names of Object.prototype's members included", () => {
    const input = JSON.parse('{"__proto__":"a file","constructor":"b","toString":"c","notes/todo.md":"d"}');
    const parsed = schema.parse(input);
    expect(Object.keys(parsed)).toEqual(["__proto__", "constructor", "toString", "notes/todo.md"]);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.entries(parsed)).toContainEqual(["__proto__", "a file"]);
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(input);
  });

  it("names each bad value by its key, as a record does", () => {
    const result = schema.safeParse(JSON.parse('{"__proto__":1,"ok":"x","bad":false}'));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [["__proto__"], "must be text (a JSON string)"],
      [["bad"], "must be text (a JSON string)"],
    ]);
    expect(schema.safeParse([1]).error?.issues[0]?.message).toBe("must be an object");
  });
});
