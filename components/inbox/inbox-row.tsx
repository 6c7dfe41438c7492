"use client";

import Link from "next/link";
import { type KeyboardEvent, type Ref, useId, useState } from "react";
import type { InboxItem } from "@/lib/queries/inbox-item";
import { describeActionError } from "../decisions/describe-action-error";
import { useDecideTurn } from "../decisions/use-decide-turn";
import { formatDuration } from "../ui/use-now";

interface InboxRowProps {
  ref?: Ref<HTMLLIElement>;
  item: InboxItem;
  now: number;
  isSelected: boolean;
  /** The one row Tab reaches (roving tabindex). */
  isTabStop: boolean;
  onSelect(): void;
}

/** One waiting run: its pending calls and how long it has waited, decided in place (`a`, `d`). */
export function InboxRow({ ref, item, now, isSelected, isTabStop, onSelect }: InboxRowProps) {
  const { decide, isPending, refusal } = useDecideTurn(item.runId);
  const [isDenying, setIsDenying] = useState(false);
  const [reason, setReason] = useState("");
  const reasonId = useId();
  const pending = item.pending;
  const waited = formatDuration(now - Date.parse(item.waitingSince));
  const explained = refusal ? describeActionError(refusal) : null;

  function approve() {
    if (pending && !isPending) decide({ approve: true, turnDigest: pending.turnDigest });
  }
  function deny() {
    if (pending && !isPending) decide({ approve: false, turnDigest: pending.turnDigest, reason });
    setIsDenying(false);
  }
  function onKeyDown(event: KeyboardEvent<HTMLLIElement>) {
    if (event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "a") {
      event.preventDefault();
      approve();
    } else if (event.key === "d") {
      event.preventDefault();
      setIsDenying(true);
    }
  }

  const callNames = pending?.calls.map((call) => call.name).join(", ") ?? "unreadable state";
  return (
    <li
      ref={ref}
      className="inbox-row"
      tabIndex={isTabStop ? 0 : -1}
      aria-current={isSelected ? "true" : undefined}
      aria-label={`${item.name}: ${callNames}, waiting ${waited}`}
      data-run-id={item.runId}
      onFocus={onSelect}
      onKeyDown={onKeyDown}
    >
      <div className="inbox-row-head">
        <Link href={`/runs/${item.runId}`}>{item.name}</Link>
        <span className="muted">
          waiting <time dateTime={item.waitingSince}>{waited}</time>
        </span>
      </div>
      {pending ? (
        <ol className="inbox-calls" aria-label="Pending calls">
          {pending.calls.map((call, position) => (
            <li key={call.batchIndex}>
              <span className="call-name">{call.name}</span>
              {position === 0 && <span className="tag tag-barrier">barrier</span>}{" "}
              <code className="inline-args">{call.arguments}</code>
            </li>
          ))}
        </ol>
      ) : (
        <p className="alert">The saved state cannot be read: {item.unreadable}</p>
      )}
      {explained && (
        <p className="alert" role="alert">
          <strong>{explained.title}.</strong> {explained.detail}
        </p>
      )}
      <div className="decision-actions">
        <button type="button" className="primary" disabled={!pending || isPending} onClick={approve}>
          Approve
        </button>
        {isDenying ? (
          <form
            className="deny-group"
            onSubmit={(event) => {
              event.preventDefault();
              deny();
            }}
          >
            <label htmlFor={reasonId}>Reason for denying</label>
            <input
              id={reasonId}
              value={reason}
              // Opened from the keyboard: the reason is what the person types next.
              // biome-ignore lint/a11y/noAutofocus: focus follows the user's `d`
              autoFocus
              onChange={(event) => setReason(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === "Escape") setIsDenying(false);
              }}
            />
            <button type="submit" className="danger" disabled={isPending}>
              Deny
            </button>
          </form>
        ) : (
          <button
            type="button"
            className="danger"
            disabled={!pending || isPending}
            onClick={() => setIsDenying(true)}
          >
            Deny
          </button>
        )}
        <span role="status" className="muted">
          {isPending ? "Sending…" : ""}
        </span>
      </div>
    </li>
  );
}
