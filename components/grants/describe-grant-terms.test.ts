import { describe, expect, it } from "vitest";
import type { ListedGrant } from "@/lib/wire/listed-grant";
import { describeGrantTerms } from "./describe-grant-terms";

const grant = (fields: Partial<ListedGrant>): ListedGrant => ({
  id: "g1",
  toolName: "write_file",
  scope: "run",
  runId: null,
  agent: null,
  agentOwnerId: null,
  agentOwnerName: null,
  starterId: null,
  starterName: null,
  condition: null,
  toolFingerprint: null,
  expiresAt: null,
  maxUses: null,
  uses: 0,
  createdInRunId: "r1",
  createdById: "u-ana",
  createdByName: "Ana",
  createdAt: "2026-12-06T10:00:00.000Z",
  revokedAt: null,
  revokedById: null,
  revokedByName: null,
  ...fields,
});

describe("a grant in words", () => {
  it("names whom it covers as a person reads it: the starter's name, an outside agent with its owner, a scenario as granted", () => {
    expect(describeGrantTerms(grant({ scope: "user", starterId: "u-bo", starterName: "Bo" }))).toBe(
      "for runs started by Bo, until revoked, 0 uses, given by Ana",
    );
    expect(describeGrantTerms(grant({ scope: "user", starterId: "u-gone" }))).toContain(
      "for runs started by an account that no longer exists",
    );
    expect(
      describeGrantTerms(
        grant({ scope: "agent", agent: "agent:triage", agentOwnerName: "Bo", maxUses: 5, uses: 2 }),
      ),
    ).toBe("for agent triage of Bo, until revoked, 2 of 5 uses, given by Ana");
    expect(
      describeGrantTerms(grant({ scope: "agent", agent: `scenario:writer@${"a".repeat(64)}` })),
    ).toContain("for agent writer as it was when granted");
  });
});
