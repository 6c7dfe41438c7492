import { describe, expect, it } from "vitest";
import { describeActionError } from "./describe-action-error";

describe("describeActionError", () => {
  it("shows a decider the policy rule does not name the rule's own message, never as a server fault to retry", () => {
    const message =
      'Policy rule "writes-by-admins" (version 1) lets only an admin decide this call of run r1.';
    expect(describeActionError({ code: "not_rule_approver", status: 403, message })).toEqual({
      title: "Not yours to decide",
      detail: message,
      canRetry: false,
    });
  });
});
