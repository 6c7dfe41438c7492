/** Shown while the run's stored events are read; the same frame the page fills, so nothing jumps. */
export default function RunLoading() {
  return (
    <div className="run-page" aria-busy="true">
      <header className="run-header">
        <div>
          <h1 className="placeholder">Loading run…</h1>
          <p className="muted run-id">&nbsp;</p>
        </div>
      </header>
      <section className="panel placeholder-block" aria-label="Steps" />
    </div>
  );
}
