"use client";

import Link from "next/link";
import { type KeyboardEvent, useRef, useState } from "react";
import type { InboxItem } from "@/lib/wire/inbox-item";
import { useCan } from "../auth/viewer-context";
import { DenyForm } from "../decisions/deny-form";
import { ExpiryCountdown } from "../decisions/expiry-countdown";
import { FileChangePreview } from "../decisions/file-change-preview";
import { needsSeveralApprovers, QuorumProgress } from "../decisions/quorum-progress";
import { RefusalAlert } from "../decisions/refusal-alert";
import { BoundDefinition, shownDefinitionOf } from "../decisions/shown-tool-definition";
import { type DecideInput, useDecideTurn } from "../decisions/use-decide-turn";
import { formatDuration } from "../ui/format-duration";
import { Timestamp } from "../ui/timestamp";

interface InboxRowProps {
  item: InboxItem;
  now: number;
  isSelected: boolean;
  /** The one row Tab reaches (roving tabindex). */
  isTabStop: boolean;
  onSelect(): void;
  /** What the decision made from this row did, while the row is held where it was decided. */
  outcome: string | null;
  /** The run no longer waits at the turn shown: nothing to decide here. */
  isSettled: boolean;
  /** A decision is being sent from this row (the page holds the row where it is). */
  onDeciding(decided: { approve: boolean; scope?: "gate" | "turn" }): void;
  /** It took effect. */
  onDecided(): void;
  /** It was refused (or never arrived): the row need not be held. */
  onRefused(): void;
  /** Lets the list move focus between rows (`j`/`k`). */
  registerRow(element: HTMLLIElement | null): void;
}

/** One waiting run: its pending calls and how long it has waited, decided in place (`a`, `d`). */
export function InboxRow({
  item,
  now,
  isSelected,
  isTabStop,
  onSelect,
  registerRow,
  outcome,
  isSettled,
  onDeciding,
  onDecided,
  onRefused,
}: InboxRowProps) {
  const { decide: send, isPending, refusal, lastInput } = useDecideTurn(item.runId, { onDecided, onRefused });
  function decide(input: DecideInput) {
    onDeciding({ approve: input.approve, scope: input.scope });
    send(input);
  }
  const [isDenying, setIsDenying] = useState(false);
  const [alwaysAllow, setAlwaysAllow] = useState(false);
  const canDecide = useCan("approver") && !isSettled;
  const row = useRef<HTMLLIElement | null>(null);
  const pending = item.pending;
  const waited = item.waitingSince ? formatDuration(now - Date.parse(item.waitingSince)) : "—";

  const gates = pending ? (pending.gates ?? [pending.calls[0]?.batchIndex ?? 0]) : [];
  function approve(scope: "gate" | "turn" = "gate") {
    if (pending && !isPending && canDecide)
      decide({
        approve: true,
        turnDigest: pending.turnDigest,
        ...(scope === "turn" ? { scope } : {}),
        // The inbox gives the simplest grant, for this run; the run page's form says more (docs/policies.md#grants).
        ...(alwaysAllow ? { grant: { scope: "run" as const } } : {}),
      });
  }
  // The reason field goes away: focus returns to the row, so the keys keep working.
  function closeDenyForm() {
    setIsDenying(false);
    requestAnimationFrame(() => row.current?.focus());
  }
  function onKeyDown(event: KeyboardEvent<HTMLLIElement>) {
    if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "a") {
      event.preventDefault();
      approve();
    } else if (event.key === "d" && pending && canDecide) {
      event.preventDefault();
      setIsDenying(true);
    }
  }

  const callNames = pending?.calls.map((call) => call.name).join(", ") ?? "unreadable state";
  return (
    <li
      ref={(element) => {
        row.current = element;
        registerRow(element);
      }}
      className="inbox-row"
      tabIndex={isTabStop ? 0 : -1}
      aria-current={isSelected ? "true" : undefined}
      aria-label={`${item.name}: ${callNames}, waiting ${waited}, run ${item.runId.slice(0, 8)}`}
      aria-keyshortcuts="a d j k"
      data-run-id={item.runId}
      onFocus={onSelect}
      onKeyDown={onKeyDown}
    >
      <div className="inbox-row-head">
        <Link href={`/runs/${item.runId}`}>{item.name}</Link>
        <span className="muted">
          waiting {item.waitingSince ? <Timestamp at={item.waitingSince}>{waited}</Timestamp> : waited}
        </span>
      </div>
      {/* Same-named runs differ here: which run, which step, which gate, whose. */}
      <p className="muted inbox-row-where">
        run <code>{item.runId.slice(0, 8)}</code>
        {item.stepIndex !== null && <> · step {item.stepIndex + 1}</>}
        {pending && gates.length > 0 && (
          <>
            {" "}
            ·{" "}
            {gates.length > 1
              ? `${gates.length} gates, first at call ${gates[0]}`
              : `gate at call ${gates[0]}`}
          </>
        )}
        {item.startedBy && <> · started by {item.startedBy}</>}
        {item.barrierRule && (
          <>
            {" "}
            · gated by policy rule <code>{item.barrierRule}</code>
          </>
        )}
      </p>
      {outcome && (
        <p className="inbox-outcome" role="status">
          {outcome}
        </p>
      )}
      {pending?.expiresAt && <ExpiryCountdown expiresAt={pending.expiresAt} isExpiring={false} />}
      {pending && <QuorumProgress pending={pending} />}
      {pending ? (
        <ol className="inbox-calls" aria-label="Pending calls">
          {pending.calls.map((call) => {
            const gate = gates.indexOf(call.batchIndex);
            const shown = shownDefinitionOf(pending, call);
            return (
              <li key={call.batchIndex}>
                <span className="call-name">{call.name}</span>
                {gate >= 0 && (
                  <span className="tag tag-barrier">
                    {gates.length > 1 ? `gate ${gate + 1} of ${gates.length}` : "barrier"}
                  </span>
                )}{" "}
                <code className="inline-args">{abbreviate(call.arguments)}</code>
                {gate >= 0 && <BoundDefinition call={call} shown={shown} />}
                {/* The same preview as the run page: what the barrier's write would change, as a diff. */}
                {gate === 0 && <FileChangePreview runId={item.runId} call={call} />}
              </li>
            );
          })}
        </ol>
      ) : (
        <p className="alert">The saved state cannot be read: {item.unreadable}</p>
      )}
      <RefusalAlert
        refusal={refusal}
        lastInput={lastInput}
        pendingDigest={pending?.turnDigest}
        isPending={isPending}
        onRetry={decide}
      />
      {canDecide && (
        <div className="decision-actions">
          <button
            type="button"
            className="primary"
            disabled={!pending || isPending}
            onClick={() => approve()}
          >
            Approve
          </button>
          {gates.length > 1 && pending && !needsSeveralApprovers(pending) && (
            <button type="button" disabled={isPending} onClick={() => approve("turn")}>
              Approve all {gates.length} gates
            </button>
          )}
          {/* A call a policy rule gated stays the rule's: no grant to offer (the run page's form hides too). */}
          {pending?.calls[0] && !needsSeveralApprovers(pending) && !item.barrierRule && (
            <label className="checkbox">
              <input
                type="checkbox"
                checked={alwaysAllow}
                onChange={(event) => setAlwaysAllow(event.target.checked)}
              />
              Always allow {pending.calls[0].name} in this run
            </label>
          )}
          <Link href={`/runs/${item.runId}`}>
            Edit arguments<span className="visually-hidden"> of {item.name}</span> on the run page
          </Link>
          {isDenying && pending ? (
            <DenyForm
              autoFocus
              isPending={isPending}
              onCancel={closeDenyForm}
              onDeny={(reason) => {
                decide({ approve: false, turnDigest: pending.turnDigest, reason });
                closeDenyForm();
              }}
            />
          ) : (
            <button
              type="button"
              className="danger"
              disabled={!pending || isPending}
              onClick={() => setIsDenying(true)}
            >
              Reply to the model instead
            </button>
          )}
          <span role="status" className="muted">
            {isPending ? "Sending…" : ""}
          </span>
        </div>
      )}
    </li>
  );
}

/** The inbox lists many runs: each call's arguments in a line or two; the run page shows them whole. */
const INBOX_ARGUMENT_CHARS = 300;

function abbreviate(text: string): string {
  return text.length > INBOX_ARGUMENT_CHARS
    ? `${text.slice(0, INBOX_ARGUMENT_CHARS)}… (open the run to see all)`
    : text;
}
