/**
 * Where a run reads the published policies from (docs/policies.md#publishing-versions-and-shadow):
 * the live one decides, the shadow one only records what it would have done.
 */
import type { ActivePolicy } from "./decide-call";

export interface PublishedPolicies {
  live: ActivePolicy | null;
  shadow: ActivePolicy | null;
}

/** The port a host implements (the database's `policies` table); read once per planned batch. */
export interface PolicySource {
  current(): Promise<PublishedPolicies>;
}

/** What a call came to, in the terms live and shadow are compared in. */
export type PolicyOutcome = "allow" | "require" | "deny";

/** What a shadow policy would have done with a call, recorded with the call (durably, in its step). */
export interface ShadowRecord {
  version: number;
  outcome: PolicyOutcome;
  /** The rule that decided; null when none matched and the declaration did. */
  rule: string | null;
  /** Set when the rule failed to evaluate (the shadow would have gated the call). */
  error?: string;
}
