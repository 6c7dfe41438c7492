"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { addUserAction, createTokenAction, revokeTokenAction } from "@/app/actions/manage-accounts";
import type { ActionResult } from "@/lib/http/action-result";
import type { TokenSummary, UserSummary } from "@/lib/server/auth/accounts";
import { ROLES, type Role } from "@/lib/server/auth/roles";

/** Users and tokens: add a person with a role, create a token (shown once), revoke one. */
export function AccountsAdmin({ users, tokens }: { users: UserSummary[]; tokens: TokenSummary[] }) {
  const router = useRouter();
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [newToken, setNewToken] = useState<string | null>(null);

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
      {message && (
        <p
          className={message.kind === "error" ? "alert" : "notice"}
          role={message.kind === "error" ? "alert" : "status"}
        >
          {message.text}
        </p>
      )}
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
      <section className="panel" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">API tokens</h2>
        <p className="muted">
          Send one as <code>Authorization: Bearer &lt;token&gt;</code>. A token acts as its owner, never above
          its own role or theirs.
        </p>
        {newToken && (
          <p className="notice" role="status">
            Copy this token now; it is not shown again: <code className="new-token">{newToken}</code>
          </p>
        )}
        <table aria-label="API tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Owner</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => (
              <tr key={token.id}>
                <td>
                  {token.name} <span className="muted">{token.start}…</span>
                </td>
                <td>{token.ownerEmail}</td>
                <td>{token.role}</td>
                <td>{new Date(token.createdAt).toLocaleString()}</td>
                <td>{token.lastUsedAt ? new Date(token.lastUsedAt).toLocaleString() : "never"}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    onClick={async () => {
                      const result = await revokeTokenAction({ name: token.name });
                      setMessage(
                        result.ok
                          ? { kind: "ok", text: `Revoked ${token.name}.` }
                          : { kind: "error", text: result.error.message },
                      );
                      router.refresh();
                    }}
                  >
                    Revoke<span className="visually-hidden"> {token.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form
          className="admin-form"
          aria-label="Create a token"
          onSubmit={async (event) => {
            const result = await submit(event, (form) =>
              createTokenAction({
                email: field(form, "email"),
                name: field(form, "name"),
                role: field(form, "role") as Role,
              }),
            );
            setNewToken(result.ok ? result.data.token : null);
            setMessage(result.ok ? null : { kind: "error", text: result.error.message });
          }}
        >
          <label>
            Token name <input name="name" required maxLength={64} />
          </label>
          <label>
            For user (email) <input name="email" type="email" required />
          </label>
          <RoleSelect />
          <button type="submit">Create token</button>
        </form>
      </section>
    </div>
  );
}

function RoleSelect() {
  return (
    <label>
      Role
      <select name="role" defaultValue="viewer">
        {ROLES.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </select>
    </label>
  );
}
