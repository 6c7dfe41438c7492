"use client";

import { useId, useState } from "react";

/**
 * A denial with a reply to the model (it reads it with the outcome in its
 * next completion), as agent inboxes offer it. Escape calls `onCancel`.
 */
export function DenyForm({
  onDeny,
  onCancel,
  isPending,
  autoFocus = false,
}: {
  onDeny(reason: string): void;
  onCancel?(): void;
  isPending: boolean;
  autoFocus?: boolean;
}) {
  const [reason, setReason] = useState("");
  const reasonId = useId();
  return (
    <form
      className="deny-group"
      onSubmit={(event) => {
        event.preventDefault();
        onDeny(reason);
      }}
    >
      <label htmlFor={reasonId}>Reply to the model instead (optional)</label>
      <input
        id={reasonId}
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") onCancel?.();
        }}
        maxLength={2000}
        placeholder="Why not, or what instead?"
        // biome-ignore lint/a11y/noAutofocus: opened by the person's own `d`, the reason is what they type next
        autoFocus={autoFocus}
      />
      <button type="submit" className="danger" disabled={isPending}>
        Deny and reply
      </button>
    </form>
  );
}
