"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { createTokenAction, revokeTokenAction } from "@/app/actions/manage-accounts";
import type { TokenSummary, UserSummary } from "@/lib/server/auth/accounts";
import { type Role, tokenRolesFor } from "@/lib/wire/roles";
import { FormMessage, type FormMessageValue } from "../ui/form-message";
import { Timestamp } from "../ui/timestamp";

/**
 * API tokens: the list (never the secrets), "Create token" (the token is shown
 * once) and "Revoke". With `ownEmail`, the person's own tokens only; else the
 * owner is picked from `users` (a typed e-mail could name nobody). The roles
 * offered are the ones the owner's token may have (createToken decides). On a
 * phone each row stacks into labelled lines, as the audit's rows do.
 */
export function TokensPanel({
  tokens,
  ownEmail,
  ownTokenRoles = [],
  users = [],
  onChange,
}: {
  tokens: TokenSummary[];
  ownEmail?: string;
  /** With `ownEmail`: the roles the person's own tokens may have. */
  ownTokenRoles?: Role[];
  /** Whom an admin may make a token for: the active users. */
  users?: Array<Pick<UserSummary, "email" | "name" | "role" | "isActive">>;
  /** Called when a token is made or revoked (the page clears its other messages). */
  onChange?: () => void;
}) {
  const router = useRouter();
  const [newToken, setNewToken] = useState<string | null>(null);
  const [isCopied, setIsCopied] = useState(false);
  const [message, setMessage] = useState<FormMessageValue | null>(null);
  const [chosenOwnerEmail, setChosenOwnerEmail] = useState("");
  const chosenOwner = users.find((user) => user.email === chosenOwnerEmail);
  // Until an admin picks the owner, only what anyone's token may be.
  const tokenRoles = ownEmail ? ownTokenRoles : tokenRolesFor(chosenOwner?.role ?? "viewer");
  const field = (form: FormData, name: string) => String(form.get(name) ?? "");
  return (
    <section className="panel" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <p className="muted">
        Send one as <code>Authorization: Bearer &lt;token&gt;</code>. A token acts as its owner, never above
        its own role or theirs.
      </p>
      <FormMessage message={message} />
      {newToken && (
        <p className="notice" role="status">
          Copy this token now; it is not shown again: <code className="new-token">{newToken}</code>{" "}
          <button
            type="button"
            onClick={async () => {
              await navigator.clipboard.writeText(newToken);
              setIsCopied(true);
            }}
          >
            {isCopied ? "Copied" : "Copy token"}
          </button>
        </p>
      )}
      <table aria-label="API tokens" className="list-table stack-on-phone">
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
              <td data-label="Name">
                {token.name} <span className="muted">{token.start}…</span>
              </td>
              <td data-label="Owner">{token.ownerEmail}</td>
              <td data-label="Role">
                {token.isRoleUnknown ? `${token.role} (unknown role: limited)` : token.role}
              </td>
              <td data-label="Created">
                <Timestamp at={token.createdAt} />
              </td>
              <td data-label="Last used">
                {token.lastUsedAt ? <Timestamp at={token.lastUsedAt} /> : "never"}
              </td>
              <td data-label="Actions">
                <button
                  type="button"
                  className="danger"
                  onClick={async () => {
                    const result = await revokeTokenAction({ id: token.id });
                    if (result.ok) onChange?.();
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
          event.preventDefault();
          const formElement = event.currentTarget;
          const form = new FormData(formElement);
          const result = await createTokenAction({
            email: ownEmail ?? field(form, "email"),
            name: field(form, "name"),
            role: field(form, "role") as Role,
          });
          setNewToken(result.ok ? result.data.token : null);
          setIsCopied(false);
          setMessage(result.ok ? null : { kind: "error", text: result.error.message });
          if (result.ok) {
            onChange?.();
            formElement.reset();
            setChosenOwnerEmail("");
            router.refresh();
          }
        }}
      >
        <label>
          Token name <input name="name" required maxLength={64} />
        </label>
        {!ownEmail && (
          <label>
            Owner
            <select
              name="email"
              required
              value={chosenOwnerEmail}
              onChange={(event) => setChosenOwnerEmail(event.target.value)}
            >
              <option value="" disabled>
                Choose a person
              </option>
              {users
                .filter((user) => user.isActive)
                .map((user) => (
                  <option key={user.email} value={user.email}>
                    {user.name} ({user.email})
                  </option>
                ))}
            </select>
          </label>
        )}
        <RoleSelect roles={tokenRoles} />
        <button type="submit">Create token</button>
      </form>
    </section>
  );
}

/** A form's `role` field, offering `roles` (viewer first chosen). */
export function RoleSelect({ roles }: { roles: readonly Role[] }) {
  return (
    <label>
      Role
      <select name="role" defaultValue="viewer">
        {roles.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </select>
    </label>
  );
}
