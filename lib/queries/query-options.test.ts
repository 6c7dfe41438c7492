import { describe, expect, it } from "vitest";
import { emptyRunView } from "@/lib/runtime/events/run-view";
import { keepNewerView } from "./query-options";

describe("the cached run view only moves forward", () => {
  const at = (lastSeq: number) => ({ ...emptyRunView("r"), lastSeq });

  it("drops a refetched view older than what the stream already folded", () => {
    const cached = at(9);
    expect(keepNewerView(cached, at(7))).toBe(cached);
  });

  it("takes a view that is as new or newer", () => {
    const fetched = at(9);
    expect(keepNewerView(at(9), fetched)).toBe(fetched);
    expect(keepNewerView(at(3), fetched)).toBe(fetched);
    expect(keepNewerView(undefined, fetched)).toBe(fetched);
  });
});
