export default function InboxLoading() {
  return (
    <div className="inbox" aria-busy="true">
      <header className="inbox-header">
        <h1>Inbox</h1>
      </header>
      <p className="panel empty">Loading waiting runs…</p>
    </div>
  );
}
