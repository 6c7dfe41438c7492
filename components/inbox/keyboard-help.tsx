"use client";

import { useModalDialog } from "../ui/use-modal-dialog";

const KEYS: Array<[string, string]> = [
  ["j", "Move to the next waiting run"],
  ["k", "Move to the previous waiting run"],
  ["a", "Approve the selected run's gate"],
  ["d", "Deny it: write a reply to the model, then Enter"],
  ["Esc", "Close the reply form, or this help"],
  ["Tab", "Move between a run's buttons"],
  ["?", "Show this help"],
];

/** The inbox's keys, in a modal dialog (`?` opens it; Escape or Close shuts it and focus goes back). */
export function KeyboardHelp({ isOpen, onClose }: { isOpen: boolean; onClose(): void }) {
  const dialog = useModalDialog(isOpen);
  return (
    <dialog
      ref={dialog}
      className="keyboard-help-dialog"
      aria-labelledby="keyboard-help-title"
      onClose={onClose}
    >
      <h2 id="keyboard-help-title">Keyboard shortcuts</h2>
      <dl>
        {KEYS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}
