import type { ErrorBody } from "@/lib/http/error-table";

/** A failed API read, with the error table's code when the server sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
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
