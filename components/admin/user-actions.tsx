"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { changeUserAction, removeUserAction } from "@/app/actions/manage-accounts";
import type { UserSummary } from "@/lib/server/auth/accounts";
import type { ActionResult } from "@/lib/wire/action-result";
import { PERSON_ROLES, type Role } from "@/lib/wire/roles";
import type { FormMessageValue } from "../ui/form-message";

/**
 * One person's account changes on /admin: role, deactivate or reactivate,
 * set a password, remove (asked twice). The server refuses what would leave no
 * active admin, and says so; `onMessage` shows what came of each change.
 */
export function UserActions({
  user,
  isSelf,
  onMessage,
}: {
  user: UserSummary;
  isSelf: boolean;
  onMessage: (message: FormMessageValue) => void;
}) {
  const router = useRouter();
  const [role, setRole] = useState<Role>(user.role);
  const [isSettingPassword, setIsSettingPassword] = useState(false);
  const [isConfirmingRemoval, setIsConfirmingRemoval] = useState(false);
  const [isBusy, setIsBusy] = useState(false);

  async function act<T>(send: () => Promise<ActionResult<T>>, done: string): Promise<boolean> {
    setIsBusy(true);
    try {
      const result = await send();
      onMessage(result.ok ? { kind: "ok", text: done } : { kind: "error", text: result.error.message });
      router.refresh();
      return result.ok;
    } finally {
      setIsBusy(false);
    }
  }

  return (
    <div className="user-actions">
      <form
        aria-label={`Role of ${user.email}`}
        onSubmit={async (event) => {
          event.preventDefault();
          const isChanged = await act(
            () => changeUserAction({ email: user.email, role }),
            `${user.email} is now ${role}.`,
          );
          if (!isChanged) setRole(user.role);
        }}
      >
        <label>
          <span className="visually-hidden">Role of {user.email}</span>
          <select value={role} onChange={(event) => setRole(event.target.value as Role)} disabled={isBusy}>
            {PERSON_ROLES.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={isBusy || role === user.role}>
          Change role<span className="visually-hidden"> of {user.email}</span>
        </button>
      </form>
      {!isSelf && (
        <button
          type="button"
          disabled={isBusy}
          className={user.isActive ? "danger" : undefined}
          onClick={() =>
            act(
              () => changeUserAction({ email: user.email, isActive: !user.isActive }),
              user.isActive
                ? `Deactivated ${user.email}: their sessions ended and their tokens stopped working.`
                : `Reactivated ${user.email}.`,
            )
          }
        >
          {user.isActive ? "Deactivate" : "Reactivate"}
          <span className="visually-hidden"> {user.email}</span>
        </button>
      )}
      {isSettingPassword ? (
        <form
          aria-label={`New password for ${user.email}`}
          onSubmit={async (event) => {
            event.preventDefault();
            const password = String(new FormData(event.currentTarget).get("password") ?? "");
            const isSet = await act(
              () => changeUserAction({ email: user.email, password }),
              `Set a new password for ${user.email}; their sessions ended.`,
            );
            if (isSet) setIsSettingPassword(false);
          }}
        >
          <label>
            New password for {user.email}{" "}
            <input name="password" type="password" minLength={8} autoComplete="new-password" required />
          </label>
          <button type="submit" disabled={isBusy}>
            Set password
          </button>
          <button type="button" onClick={() => setIsSettingPassword(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" disabled={isBusy} onClick={() => setIsSettingPassword(true)}>
          Reset password<span className="visually-hidden"> of {user.email}</span>
        </button>
      )}
      {!isSelf &&
        (isConfirmingRemoval ? (
          <>
            <button
              type="button"
              className="danger"
              disabled={isBusy}
              onClick={async () => {
                await act(
                  () => removeUserAction({ email: user.email }),
                  `Removed ${user.email} with their sessions and tokens; the audit keeps their rows.`,
                );
                setIsConfirmingRemoval(false);
              }}
            >
              Remove {user.email} for good
            </button>
            <button type="button" onClick={() => setIsConfirmingRemoval(false)}>
              Keep
            </button>
          </>
        ) : (
          <button
            type="button"
            className="danger"
            disabled={isBusy}
            onClick={() => setIsConfirmingRemoval(true)}
          >
            Remove<span className="visually-hidden"> {user.email}</span>
          </button>
        ))}
    </div>
  );
}
