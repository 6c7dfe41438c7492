"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { createFirstAdminAction } from "@/app/actions/create-first-admin";

/** Name, email and password of the first administrator; then straight into the app, signed in. */
export function FirstAdminForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [isPending, setPending] = useState(false);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const result = await createFirstAdminAction({
        name: String(form.get("name") ?? ""),
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
      });
      if (result.ok) {
        router.replace("/");
        router.refresh();
      } else {
        setError(result.error.message);
      }
    } catch {
      setError("The server could not be reached.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="auth-form" onSubmit={create}>
      <label htmlFor="name">Your name</label>
      <input id="name" name="name" autoComplete="name" required />
      <label htmlFor="email">Email</label>
      <input id="email" name="email" type="email" autoComplete="username" required />
      <label htmlFor="password">Password (at least 8 characters)</label>
      <input
        id="password"
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={8}
        required
      />
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="primary" disabled={isPending}>
        {isPending ? "Creating…" : "Create the administrator"}
      </button>
    </form>
  );
}
