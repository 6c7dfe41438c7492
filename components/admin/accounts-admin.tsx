"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { addUserAction } from "@/app/actions/manage-accounts";
import type { ActionResult } from "@/lib/http/action-result";
import type { TokenSummary, UserSummary } from "@/lib/server/auth/accounts";
import type { Role } from "@/lib/server/auth/roles";
import { FormMessage, type FormMessageValue } from "../ui/form-message";
import { RoleSelect, TokensPanel } from "./tokens-panel";

/** Users and tokens: add a person with a role; every token (create, shown once; revoke). */
export function AccountsAdmin({ users, tokens }: { users: UserSummary[]; tokens: TokenSummary[] }) {
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
      <FormMessage message={message} />
      <section className="panel" aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        <table aria-label="Users">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id}>
                <td>{user.name}</td>
                <td>{user.email}</td>
                <td>{user.role}</td>
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
          <RoleSelect />
          <label>
            Password{" "}
            <input name="password" type="password" minLength={8} autoComplete="new-password" required />
          </label>
          <button type="submit">Add user</button>
        </form>
      </section>
      <TokensPanel tokens={tokens} />
    </div>
  );
}
