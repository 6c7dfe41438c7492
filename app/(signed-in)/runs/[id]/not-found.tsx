import Link from "next/link";

export default function RunNotFound() {
  return (
    <div className="panel">
      <h1>No such run</h1>
      <p>This run does not exist here. It may belong to another database, or the link is mistyped.</p>
      <p>
        <Link href="/">Start a run in the playground</Link> or <Link href="/inbox">open the inbox</Link>.
      </p>
    </div>
  );
}
