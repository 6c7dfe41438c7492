"use client";

import { useState } from "react";
import { changeOwnPasswordAction } from "@/app/actions/manage-accounts";
import { FormMessage, type FormMessageValue } from "../ui/form-message";

/** Your own password: the current one, then the new one; your other sessions end. */
export function OwnPasswordForm() {
  const [message, setMessage] = useState<FormMessageValue | null>(null);
  return (
    <section className="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <FormMessage message={message} />
      <form
        className="admin-form"
        aria-label="Change your password"
        onSubmit={async (event) => {
          event.preventDefault();
          const formElement = event.currentTarget;
          const form = new FormData(formElement);
          const result = await changeOwnPasswordAction({
            currentPassword: String(form.get("currentPassword") ?? ""),
            newPassword: String(form.get("newPassword") ?? ""),
          });
          if (result.ok) formElement.reset();
          setMessage(
            result.ok
              ? { kind: "ok", text: "Password changed; your other sessions ended." }
              : { kind: "error", text: result.error.message },
          );
        }}
      >
        <label>
          Current password{" "}
          <input name="currentPassword" type="password" autoComplete="current-password" required />
        </label>
        <label>
          New password{" "}
          <input name="newPassword" type="password" minLength={8} autoComplete="new-password" required />
        </label>
        <button type="submit">Change password</button>
      </form>
    </section>
  );
}
