const LABELS: Record<string, string> = {
  RUNNING: "Running",
  WAITING_FOR_APPROVAL: "Waiting for approval",
  COMPLETED: "Completed",
  FAILED: "Failed",
  CANCELLED: "Cancelled",
};

/** A run's status as a coloured label (colour is never the only signal: the word is there too). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span className="status-badge" data-status={status}>
      {LABELS[status] ?? status}
    </span>
  );
}
