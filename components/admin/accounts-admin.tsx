"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { addUserAction } from "@/app/actions/manage-accounts";
import type { TokenSummary, UserSummary } from "@/lib/server/auth/accounts";
import type { ActionResult } from "@/lib/wire/action-result";
import { PERSON_ROLES, type Role } from "@/lib/wire/roles";
import { FormMessage, type FormMessageValue } from "../ui/form-message";
import { RoleSelect, TokensPanel } from "./tokens-panel";
import { UserActions } from "./user-actions";

/**
 * Users and tokens: add a person with a role; change a role, deactivate,
 * reset a password or remove; every token (create, shown once; revoke). One
 * message at a time: what the last change came to, never a refusal left over
 * from an earlier one.
 */
export function AccountsAdmin({
  users,
  tokens,
  ownEmail,
}: {
  users: UserSummary[];
  tokens: TokenSummary[];
  ownEmail: string;
}) {
  const router = useRouter();
  const [message, setMessage] = useState<FormMessageValue | null>(null);

  async function submit<T>(
    event: FormEvent<HTMLFormElement>,
    send: (form: FormData) => Promise<ActionResult<T>>,
  ) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const result = await send(new FormData(formElement));
    if (result.ok) {
      formElement.reset();
      router.refresh();
    }
    return result;
  }
  const field = (form: FormData, name: string) => String(form.get(name) ?? "");

  return (
    <div className="admin-page">
      <h1>Users and tokens</h1>
      <section className="panel" aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        <FormMessage message={message} />
        <table aria-label="Users" className="list-table stack-on-phone">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id}>
                <td data-label="Name">{user.name}</td>
                <td data-label="Email">{user.email}</td>
                <td data-label="Role">{user.role}</td>
                <td data-label="Status">{user.isActive ? "active" : "deactivated"}</td>
                <td data-label="Actions">
                  <UserActions
                    user={user}
                    isSelf={user.email.toLowerCase() === ownEmail.toLowerCase()}
                    onMessage={setMessage}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form
          className="admin-form"
          aria-label="Add a user"
          onSubmit={async (event) => {
            const result = await submit(event, (form) =>
              addUserAction({
                email: field(form, "email"),
                name: field(form, "name"),
                role: field(form, "role") as Role,
                password: field(form, "password"),
              }),
            );
            setMessage(
              result.ok
                ? { kind: "ok", text: `Added ${result.data.email}.` }
                : { kind: "error", text: result.error.message },
            );
          }}
        >
          <label>
            Name <input name="name" required />
          </label>
          <label>
            Email <input name="email" type="email" required />
          </label>
          <RoleSelect roles={PERSON_ROLES} />
          <label>
            Password{" "}
            <input name="password" type="password" minLength={8} autoComplete="new-password" required />
          </label>
          <button type="submit">Add user</button>
        </form>
      </section>
      {/* A token made or revoked is the latest news: an earlier message about users no longer applies. */}
      <TokensPanel tokens={tokens} users={users} onChange={() => setMessage(null)} />
    </div>
  );
}
