import { describe, expect, it } from "vitest";
import { applyInboxChanges, diffInboxPages } from "./inbox-changes";
import type { InboxItem, InboxPage } from "./inbox-item";

const item = (runId: string, turnDigest = "a".repeat(64)): InboxItem => ({
  runId,
  name: `run ${runId}`,
  startedBy: "Ada",
  waitingSince: "2026-11-30T08:00:00.000Z",
  stepIndex: 0,
  pending: { turnDigest, calls: [{ id: "c", name: "write_file", arguments: "{}", batchIndex: 0 }] },
  barrierRule: null,
  unreadable: null,
});
const page = (items: InboxItem[], total = items.length, nextCursor: string | null = null): InboxPage => ({
  items,
  total,
  nextCursor,
});

describe("inbox changes", () => {
  it.each([
    ["a new wait on top", page([item("b"), item("a")]), page([item("c"), item("b"), item("a")])],
    ["a decided run leaves", page([item("c"), item("b"), item("a")]), page([item("c"), item("a")], 2)],
    [
      "a run waits again at its next gate",
      page([item("b"), item("a")]),
      page([item("a", "b".repeat(64)), item("b")]),
    ],
    [
      "the page fills from further down",
      page([item("b"), item("a")], 3, "x"),
      page([item("a"), item("z")], 2, null),
    ],
  ])("rebuild the new page from the old one: %s", (_, before, after) => {
    const changes = diffInboxPages(before, after);
    expect(changes).not.toBeNull();
    if (changes) expect(applyInboxChanges(before, changes)).toEqual(after);
    // Only what changed travels.
    expect(changes?.upserted.length).toBeLessThan(after.items.length + 1);
  });

  it("are nothing when the page shows the same", () => {
    expect(diffInboxPages(page([item("a")]), page([item("a")]))).toBeNull();
  });
});
