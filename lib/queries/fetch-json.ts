import type { ErrorBody } from "@/lib/wire/error-table";

/** A failed API read, with the error table's code when the server sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** GETs JSON from our own API; a refusal becomes an {@link ApiError} carrying the server's message. */
export async function fetchJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(url, { signal, headers: { accept: "application/json" } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as ErrorBody | null;
    throw new ApiError(
      response.status,
      body?.error.code ?? "internal_error",
      body?.error.message ?? `The server answered ${response.status}.`,
    );
  }
  return (await response.json()) as T;
}

/** POSTs JSON to our own API and reads its JSON answer; a refusal becomes an {@link ApiError} with its details. */
export async function postJson<T>(url: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    signal,
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const refusal = (await response.json().catch(() => null)) as ErrorBody | null;
    throw new ApiError(
      response.status,
      refusal?.error.code ?? "internal_error",
      refusal?.error.message ?? `The server answered ${response.status}.`,
      refusal?.error.details ?? null,
    );
  }
  return (await response.json()) as T;
}
