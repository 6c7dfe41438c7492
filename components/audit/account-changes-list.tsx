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

/**
 * The latest account changes (admins): who changed whose account, and how; never a password. On a
 * phone each row stacks into labelled lines, as the audit's rows do (a table scrolling sideways there
 * cannot be reached by keyboard).
 */
export function AccountChangesList({ events }: { events: AccountEvent[] }) {
  return (
    <section className="panel" aria-labelledby="account-changes-heading">
      <h2 id="account-changes-heading">Account changes</h2>
      {events.length === 0 ? (
        <p className="muted">No account has changed yet.</p>
      ) : (
        <table aria-label="Account changes" className="list-table stack-on-phone">
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
                <td data-label="When">
                  <Timestamp at={event.at} />
                </td>
                <td data-label="Who">{event.actorEmail ?? "the CLI, on the database"}</td>
                <td data-label="Whose account">{event.subjectEmail}</td>
                <td data-label="What">
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
