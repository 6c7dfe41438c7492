import { describe, expect, it } from "vitest";
import {
  applyDraftMessage,
  type CompletionDraft,
  createCompletionDrafts,
  type DraftSent,
  type DraftView,
  diffCompletionDraft,
} from "./completion-drafts";

/** Sends every draft through diff and apply, as a stream and a page do, and returns what the page has. */
function follow(drafts: CompletionDraft[]): DraftView | null {
  let sent: DraftSent | null = null;
  let shown: DraftView | null = null;
  for (const draft of drafts) {
    const next = diffCompletionDraft(sent, draft);
    if (!next) continue;
    sent = next.sent;
    shown = applyDraftMessage(shown, JSON.parse(JSON.stringify(next.message)));
  }
  return shown;
}

describe("a process's completion drafts", () => {
  it("keeps a run's draft as it grows, tells its followers, and forgets it at the end", () => {
    const drafts = createCompletionDrafts();
    let told = 0;
    const unfollow = drafts.follow("r1", () => {
      told += 1;
    });
    drafts.publish("r1", 0, { text: "Let", calls: [] });
    drafts.publish("r1", 0, { text: "Let me", calls: [{ name: "read_file", arguments: '{"pa' }] });
    expect(drafts.current("r1")).toEqual({
      stepIndex: 0,
      generation: 1,
      text: "Let me",
      calls: [{ name: "read_file", arguments: '{"pa' }],
    });
    expect(drafts.current("r2")).toBeUndefined();
    // Withdrawn (asked again without streaming): a new generation, empty.
    drafts.publish("r1", 0, null);
    expect(drafts.current("r1")).toMatchObject({ generation: 2, text: "", calls: [] });
    drafts.end("r1");
    expect(drafts.current("r1")).toBeUndefined();
    expect(told).toBe(4);
    unfollow();
    drafts.publish("r1", 1, { text: "x", calls: [] });
    expect(told).toBe(4);
  });
});

describe("sending a draft to a page", () => {
  const draft = (
    text: string,
    calls: CompletionDraft["calls"] = [],
    overrides: Partial<CompletionDraft> = {},
  ) => ({
    stepIndex: 2,
    generation: 1,
    text,
    calls,
    ...overrides,
  });

  it("sends the whole draft first, then only what was generated since", () => {
    const first = diffCompletionDraft(null, draft("Let me"));
    expect(first?.message).toEqual({ step: 2, reset: true, text: "Let me", calls: [] });
    const second = diffCompletionDraft(
      first?.sent ?? null,
      draft("Let me read", [{ name: "read_file", arguments: '{"pa' }]),
    );
    expect(second?.message).toEqual({
      step: 2,
      reset: false,
      text: " read",
      calls: [{ index: 0, name: "read_file", arguments: '{"pa' }],
    });
    const third = diffCompletionDraft(
      second?.sent ?? null,
      draft("Let me read", [{ name: "read_file", arguments: '{"path":"a"}' }]),
    );
    expect(third?.message).toEqual({
      step: 2,
      reset: false,
      text: "",
      calls: [{ index: 0, arguments: 'th":"a"}' }],
    });
    // Nothing new: nothing to send.
    expect(
      diffCompletionDraft(
        third?.sent ?? null,
        draft("Let me read", [{ name: "read_file", arguments: '{"path":"a"}' }]),
      ),
    ).toBeNull();
  });

  it("starts again whole for another step or generation, and the page ends with exactly the draft", () => {
    const steps = [
      draft("Let"),
      draft("Let me", [{ name: "read_file", arguments: "{" }]),
      draft("", [], { generation: 2 }),
      draft("", [], { stepIndex: 3 }),
      draft("Done", [{ name: "finish", arguments: '{"summary":' }], { stepIndex: 3 }),
      draft(
        "Done.",
        [
          { name: "finish", arguments: '{"summary":"ok"}' },
          { name: "note", arguments: "{}" },
        ],
        { stepIndex: 3 },
      ),
    ];
    expect(follow(steps)).toEqual({
      step: 3,
      text: "Done.",
      calls: [
        { name: "finish", arguments: '{"summary":"ok"}' },
        { name: "note", arguments: "{}" },
      ],
    });
    const reset = diffCompletionDraft(
      diffCompletionDraft(null, steps[1] as CompletionDraft)?.sent ?? null,
      steps[2] as CompletionDraft,
    );
    expect(reset?.message.reset).toBe(true);
  });

  it("ignores a continuation of a draft the page does not have", () => {
    expect(applyDraftMessage(null, { step: 1, reset: false, text: "more", calls: [] })).toBeNull();
    const shown = { step: 0, text: "a", calls: [] };
    expect(applyDraftMessage(shown, { step: 1, reset: false, text: "more", calls: [] })).toBe(shown);
  });
});
