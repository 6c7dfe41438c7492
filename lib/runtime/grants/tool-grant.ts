/**
 * Scoped grants (docs/policies.md#grants): "allow `read_file` under `docs/` for this agent for
 * 8 hours". A grant waives the approval a tool's declaration asks for, for the calls it covers: of
 * one tool, within its scope, matching its condition, before its expiry, while uses are left. It
 * is created by an approval, kept in a table (it outlives the run and the instance), listed,
 * revoked, and each call it lets through is audited as an automatic approval naming it.
 */
import { z } from "zod";

/** Whose calls a grant covers: the run it was given in, the run's agent, the run's starter, or every run. */
export const GRANT_SCOPES = ["run", "agent", "user", "everyone"] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

/** At most a year, and at most this many uses: a grant is a standing exception people must be able to reason about. */
export const MAX_GRANT_SECONDS = 365 * 24 * 60 * 60;
export const MAX_GRANT_USES = 10_000;
export const MAX_GRANT_CONDITION_CHARACTERS = 2_000;

/**
 * What an approver asks for when approving (the decision's `grant`). `{ scope: "run" }` alone is
 * the old "always allow": this run, any arguments, no expiry, no limit on uses.
 */
export const grantRequestSchema = z
  .object({
    scope: z.enum(GRANT_SCOPES),
    /** A CEL condition over the call, e.g. `args.path.startsWith("docs/")`; checked like a policy rule. */
    condition: z.string().trim().min(1).max(MAX_GRANT_CONDITION_CHARACTERS).nullable().optional(),
    /** How long the grant lasts from its creation; none: until revoked. */
    expiresInSeconds: z.number().int().min(60).max(MAX_GRANT_SECONDS).nullable().optional(),
    /** How many calls it may let through; none: no limit. */
    maxUses: z.number().int().min(1).max(MAX_GRANT_USES).nullable().optional(),
  })
  .strict();
export type GrantRequest = z.infer<typeof grantRequestSchema>;

/** Who a grant's scope is bound to, read from the run it was given in. */
export interface GrantSubject {
  runId: string;
  /** The agent driving the run (docs/policies.md#grants says how a run's agent is named). */
  agent: string;
  /**
   * For an outside agent, the person whose token opened the run: an agent's name is whatever its
   * token sends, so only its owner and that name together say whose agent it is. Null for the
   * playground's own model, whose agent is its scenario's name and content, whoever starts it.
   */
  agentOwner: { id: string; name: string } | null;
  /** The user who started the run; "" for a run nobody started (a headless one). */
  starter: string;
}

/** A grant as stored. Times are ISO strings. */
export interface ToolGrant {
  id: string;
  toolName: string;
  scope: GrantScope;
  /** The subject of its scope: only the field its scope names is compared. */
  runId: string | null;
  agent: string | null;
  /** With `agent`, for an outside agent's: whose agent it is (its name is shown, its id compared). */
  agentOwnerId: string | null;
  agentOwnerName: string | null;
  starterId: string | null;
  condition: string | null;
  /** For a tool defined elsewhere (an MCP server's): the definition it was given for; it covers no other. */
  toolFingerprint: string | null;
  expiresAt: string | null;
  maxUses: number | null;
  uses: number;
  /** The run whose approval created it. */
  createdInRunId: string;
  createdById: string | null;
  createdByName: string;
  createdAt: string;
  revokedAt: string | null;
  revokedById: string | null;
  revokedByName: string | null;
}

/** A grant about to be stored: the store gives it its creation time and zero uses. */
export type NewToolGrant = Omit<
  ToolGrant,
  "uses" | "createdAt" | "revokedAt" | "revokedById" | "revokedByName"
>;

/** Builds the grant an approval asked for, bound to the run it was given in. */
export function newToolGrant(
  request: GrantRequest,
  context: {
    toolName: string;
    toolFingerprint: string | null;
    subject: GrantSubject;
    creator: { name: string; id: string | null };
    now: number;
  },
): NewToolGrant {
  const parsed = grantRequestSchema.parse(request);
  const { subject } = context;
  return {
    id: crypto.randomUUID(),
    toolName: context.toolName,
    scope: parsed.scope,
    runId: parsed.scope === "run" ? subject.runId : null,
    agent: parsed.scope === "agent" ? subject.agent : null,
    agentOwnerId: parsed.scope === "agent" ? (subject.agentOwner?.id ?? null) : null,
    agentOwnerName: parsed.scope === "agent" ? (subject.agentOwner?.name ?? null) : null,
    starterId: parsed.scope === "user" ? subject.starter : null,
    condition: parsed.condition ?? null,
    toolFingerprint: context.toolFingerprint,
    expiresAt:
      parsed.expiresInSeconds == null
        ? null
        : new Date(context.now + parsed.expiresInSeconds * 1000).toISOString(),
    maxUses: parsed.maxUses ?? null,
    createdInRunId: subject.runId,
    createdById: context.creator.id,
    createdByName: context.creator.name,
  };
}

/** How the audit and the call table name a grant: its short id and who gave it. */
export function describeGrant(grant: Pick<ToolGrant, "id" | "createdByName">): string {
  return `grant ${grant.id.slice(0, 8)} by ${grant.createdByName}`;
}
