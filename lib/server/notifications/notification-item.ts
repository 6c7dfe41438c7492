import type { StoredRunEvent } from "@/lib/runtime/events/run-events";
import type { NotificationChannel, RunFilter } from "@/lib/server/config/notification-channels";

/** How many characters of a turn digest a message shows (the inbox shows the same prefix). */
export const DIGEST_PREFIX_LENGTH = 12;
/** How many characters of a call's arguments a message shows. */
const ARGUMENTS_SUMMARY_LENGTH = 160;

/** What one message says of one event (docs/notifications.md#what-is-sent). */
export type NotificationItem =
  | {
      kind: "waiting";
      runId: string;
      runName: string;
      turnDigest: string;
      /** The turn as shown: every pending call, the gated ones marked. */
      calls: Array<{ name: string; arguments: string; isGated: boolean }>;
      expiresAt: string | null;
      /** The recipient's own decision links (e-mail only; docs/notifications.md#decision-links). */
      links?: { approve: string; deny: string; open: string };
      /** Present when it is an escalation step telling the next group (docs/notifications.md#escalation). */
      escalation?: {
        step: number;
        steps: number;
        afterMinutes: number;
        /** The step's group as configured. */
        to: { users: string[]; roles: string[] };
      };
    }
  | { kind: "expiring"; runId: string; runName: string; turnDigest: string; expiresAt: string }
  | {
      kind: "ended";
      runId: string;
      runName: string;
      turnDigest: string;
      outcome: "approved" | "denied" | "expired" | "cancelled";
      by: string | null;
    };

export function summarizeArguments(raw: string): string {
  const flat = raw.replace(/\s+/g, " ").trim();
  return flat.length > ARGUMENTS_SUMMARY_LENGTH ? `${flat.slice(0, ARGUMENTS_SUMMARY_LENGTH - 1)}…` : flat;
}

/** The item an event makes, or null for an event nobody is told about. */
export function itemForEvent(runId: string, runName: string, event: StoredRunEvent): NotificationItem | null {
  switch (event.type) {
    case "awaiting_approval": {
      const gates = new Set(event.payload.gates ?? [event.payload.calls[0]?.batchIndex]);
      return {
        kind: "waiting",
        runId,
        runName,
        turnDigest: event.payload.turnDigest,
        calls: event.payload.calls.map((call) => ({
          name: call.name,
          arguments: summarizeArguments(call.arguments),
          isGated: gates.has(call.batchIndex),
        })),
        expiresAt: event.payload.expiresAt ?? null,
      };
    }
    case "approval_expiring":
      return {
        kind: "expiring",
        runId,
        runName,
        turnDigest: event.payload.turnDigest,
        expiresAt: event.payload.expiresAt,
      };
    case "approval_decided":
      return {
        kind: "ended",
        runId,
        runName,
        turnDigest: event.payload.turnDigest,
        outcome: event.payload.approve ? "approved" : "denied",
        by: event.payload.actor,
      };
    case "approval_expired":
      return {
        kind: "ended",
        runId,
        runName,
        turnDigest: event.payload.turnDigest,
        outcome: "expired",
        by: null,
      };
    case "run_claimed":
      return event.payload.purpose === "cancel"
        ? {
            kind: "ended",
            runId,
            runName,
            turnDigest: event.payload.turnDigest,
            outcome: "cancelled",
            by: null,
          }
        : null;
    default:
      return null;
  }
}

/** The run's metadata: an agent run's `agent.metadata`, else nothing. */
export function runMetadata(scenario: unknown): Record<string, string> {
  const model = (scenario as { model?: { kind?: string; agent?: { metadata?: Record<string, string> } } })
    ?.model;
  return model?.kind === "agent" ? (model.agent?.metadata ?? {}) : {};
}

/**
 * Whether a channel hears of a waiting run: every run, or one whose gated calls use one of its
 * tools or servers, or whose metadata carries its tags (any of the three that are given).
 */
export function isRunHeard(
  filter: NotificationChannel["runs"],
  gated: Array<{ name: string; server: string | null }>,
  metadata: Record<string, string>,
): boolean {
  if (filter === "all") return true;
  const f: RunFilter = filter;
  if (f.tools?.some((tool) => gated.some((call) => call.name === tool))) return true;
  if (f.servers?.some((server) => gated.some((call) => call.server === server))) return true;
  if (f.tags && Object.keys(f.tags).length > 0) {
    return Object.entries(f.tags).every(([key, value]) => metadata[key] === value);
  }
  return false;
}
