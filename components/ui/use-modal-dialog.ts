import { useEffect, useRef } from "react";

/**
 * A `<dialog>` shown as a modal while `isOpen` (focus trapped, Escape closes it, focus returns
 * where it was): attach the returned ref to the dialog element.
 */
export function useModalDialog(isOpen: boolean) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (isOpen && !element.open) element.showModal();
    if (!isOpen && element.open) element.close();
  }, [isOpen]);
  return dialog;
}
