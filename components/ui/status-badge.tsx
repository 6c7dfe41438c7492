const LABELS: Record<string, string> = {
  RUNNING: "Running",
  WAITING_FOR_APPROVAL: "Waiting for approval",
  COMPLETED: "Completed",
  FAILED: "Failed",
  CANCELLED: "Cancelled",
  /** Not a stored status: a RUNNING run whose worker is gone, until another instance takes it over. */
  RECOVERING: "Recovering…",
};

/** A run's status in words, as the badge and the status filter say it. */
export function describeStatus(status: string): string {
  return LABELS[status] ?? status;
}

/** A run's status as a coloured label (colour is never the only signal: the word is there too). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span className="status-badge" data-status={status}>
      {describeStatus(status)}
    </span>
  );
}
