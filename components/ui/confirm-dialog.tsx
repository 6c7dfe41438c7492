"use client";

import { type ReactNode, useId } from "react";
import { useModalDialog } from "./use-modal-dialog";

/**
 * A question that needs an answer before something that cannot be undone: a
 * modal `<dialog>` (focus moves into it, Escape or the cancel button closes
 * it, focus goes back), not the browser's `confirm()`, which screen readers
 * and tests handle poorly and which cannot say what will happen in detail.
 */
export function ConfirmDialog({
  isOpen,
  title,
  children,
  confirmLabel,
  cancelLabel,
  isDanger = false,
  onConfirm,
  onClose,
}: {
  isOpen: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  isDanger?: boolean;
  onConfirm(): void;
  onClose(): void;
}) {
  const dialog = useModalDialog(isOpen);
  const titleId = useId();
  const bodyId = useId();
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onClose={onClose}
    >
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId}>{children}</div>
      <form method="dialog" className="decision-actions">
        {/* The safe answer is first and has focus, so Enter never does the irreversible thing by accident. */}
        <button type="submit" value="cancel">
          {cancelLabel}
        </button>
        <button
          type="button"
          className={isDanger ? "danger" : "primary"}
          onClick={() => {
            onConfirm();
            dialog.current?.close();
          }}
        >
          {confirmLabel}
        </button>
      </form>
    </dialog>
  );
}
