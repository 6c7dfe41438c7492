import { describe, expect, it } from "vitest";
import { tokenRolesFor } from "./roles";

describe("the roles a token may be made with", () => {
  it("offer agent only to an owner who may start runs, and nothing above the owner or the creator", () => {
    expect(tokenRolesFor("viewer")).toEqual(["viewer"]);
    expect(tokenRolesFor("operator")).toEqual(["agent", "viewer", "operator"]);
    expect(tokenRolesFor("admin")).toEqual(["agent", "viewer", "operator", "approver", "admin"]);
    // An admin on /account with a token limited to viewer: an agent token would start runs.
    expect(tokenRolesFor("admin", "viewer")).toEqual(["viewer"]);
  });
});
