import { describe, expect, it } from "vitest";
import { runListQuerySchema } from "@/lib/wire/list-filters";
import { readListQuery } from "./read-list-query";

describe("a list page's address", () => {
  it("is read with the list's schema", () => {
    expect(readListQuery(runListQuerySchema, { status: "FAILED", q: " deploy " })).toEqual({
      query: { status: "FAILED", q: "deploy", limit: 50 },
      problem: null,
    });
  });

  it.each([
    [{ status: "DONE" }, "status: must be one of"],
    [{ q: "a\u0000b" }, "q: "],
    [{ limit: "9999" }, "limit: must be at most 200"],
  ])("never fails the page: %j shows everything and names the problem", (params, problem) => {
    const read = readListQuery(runListQuerySchema, params);
    expect(read.query).toEqual({ limit: 50 });
    expect(read.problem).toContain(problem);
  });
});
