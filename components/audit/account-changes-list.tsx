import type { AccountEvent } from "@/lib/server/auth/account-changes";
import { Timestamp } from "../ui/timestamp";

const WHAT: Record<AccountEvent["kind"], string> = {
  user_added: "added",
  role_changed: "role changed",
  user_deactivated: "deactivated",
  user_reactivated: "reactivated",
  user_removed: "removed",
  password_reset: "password set by an admin",
  password_changed: "changed their own password",
};

/** The latest account changes (admins): who changed whose account, and how; never a password. */
export function AccountChangesList({ events }: { events: AccountEvent[] }) {
  return (
    <section className="panel" aria-labelledby="account-changes-heading">
      <h2 id="account-changes-heading">Account changes</h2>
      {events.length === 0 ? (
        <p className="muted">No account has changed yet.</p>
      ) : (
        <table aria-label="Account changes">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Whose account</th>
              <th scope="col">What</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                <td>
                  <Timestamp at={event.at} />
                </td>
                <td>{event.actorEmail ?? "the CLI, on the database"}</td>
                <td>{event.subjectEmail}</td>
                <td>
                  {WHAT[event.kind]}
                  {event.detail ? ` (${event.detail})` : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
