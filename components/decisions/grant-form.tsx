"use client";

import { useId } from "react";
import type { GrantRequest, GrantScope } from "@/lib/runtime/browser";

/** What the form holds: whether to give a grant, and its fields as typed. */
export interface GrantDraft {
  isGranting: boolean;
  scope: GrantScope;
  condition: string;
  expiresInSeconds: number | null;
  maxUses: string;
}

export const EMPTY_GRANT_DRAFT: GrantDraft = {
  isGranting: false,
  scope: "run",
  condition: "",
  expiresInSeconds: null,
  maxUses: "",
};

const SCOPE_LABELS: Record<GrantScope, string> = {
  run: "this run",
  agent: "this agent",
  user: "runs this run's starter starts",
  everyone: "everyone",
};

const EXPIRIES: Array<{ label: string; seconds: number | null }> = [
  { label: "until revoked", seconds: null },
  { label: "1 hour", seconds: 60 * 60 },
  { label: "8 hours", seconds: 8 * 60 * 60 },
  { label: "1 day", seconds: 24 * 60 * 60 },
  { label: "7 days", seconds: 7 * 24 * 60 * 60 },
];

/**
 * The grant the approval gives, as the server checks it (docs/policies.md#grants). A maximum that
 * is not a whole number is sent as typed, so the refusal names it rather than the form guessing.
 */
export function toGrantRequest(draft: GrantDraft): GrantRequest | undefined {
  if (!draft.isGranting) return undefined;
  const maxUses = draft.maxUses.trim();
  return {
    scope: draft.scope,
    ...(draft.condition.trim() ? { condition: draft.condition.trim() } : {}),
    ...(draft.expiresInSeconds === null ? {} : { expiresInSeconds: draft.expiresInSeconds }),
    ...(maxUses ? { maxUses: Number(maxUses) } : {}),
  };
}

/**
 * "Also allow later calls of `read_file` under `docs/` for this agent for 8 hours": a small form
 * beside Approve. Its defaults (this run, any arguments, until revoked, no limit) are the old
 * "always allow".
 */
export function GrantForm({
  toolName,
  isBoundToDefinition,
  draft,
  onChange,
}: {
  toolName: string;
  /** An MCP server's tool: the grant covers the definition shown only. */
  isBoundToDefinition: boolean;
  draft: GrantDraft;
  onChange(draft: GrantDraft): void;
}) {
  const id = useId();
  const set = (change: Partial<GrantDraft>) => onChange({ ...draft, ...change });
  return (
    <fieldset className="grant-form">
      <legend className="visually-hidden">Grant</legend>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={draft.isGranting}
          onChange={(event) => set({ isGranting: event.target.checked })}
        />
        Also allow later calls of {toolName} without asking
      </label>
      {draft.isGranting && (
        <div className="grant-fields">
          <label htmlFor={`${id}-scope`}>For</label>
          <select
            id={`${id}-scope`}
            value={draft.scope}
            onChange={(event) => set({ scope: event.target.value as GrantScope })}
          >
            {(Object.keys(SCOPE_LABELS) as GrantScope[]).map((scope) => (
              <option key={scope} value={scope}>
                {SCOPE_LABELS[scope]}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-condition`}>Only when (CEL, optional)</label>
          <input
            id={`${id}-condition`}
            type="text"
            spellCheck={false}
            autoComplete="off"
            placeholder='args.path.startsWith("docs/")'
            value={draft.condition}
            onChange={(event) => set({ condition: event.target.value })}
          />
          <label htmlFor={`${id}-expiry`}>Lasts</label>
          <select
            id={`${id}-expiry`}
            value={draft.expiresInSeconds ?? ""}
            onChange={(event) =>
              set({ expiresInSeconds: event.target.value ? Number(event.target.value) : null })
            }
          >
            {EXPIRIES.map((expiry) => (
              <option key={expiry.label} value={expiry.seconds ?? ""}>
                {expiry.label}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-uses`}>At most (uses)</label>
          <input
            id={`${id}-uses`}
            type="number"
            inputMode="numeric"
            min={1}
            placeholder="no limit"
            value={draft.maxUses}
            onChange={(event) => set({ maxUses: event.target.value })}
          />
          {isBoundToDefinition && (
            <p className="muted grant-note">
              {toolName} comes from an MCP server: the grant covers the definition shown here, and nothing
              once the server changes it.
            </p>
          )}
        </div>
      )}
    </fieldset>
  );
}
