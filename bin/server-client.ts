// The CLI's way to a running app: its HTTP API, with an API token, for the commands that would
// otherwise open the app's database (which, embedded, the running app holds: db/folder-lock.ts).

/** A request the server refused, or could not be sent: the message says which and why. */
export class ServerRequestError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "ServerRequestError";
  }
}

export interface ServerClient {
  readonly url: string;
  /** Sends a JSON request; answers the parsed JSON body, or throws a {@link ServerRequestError}. */
  request<T>(method: "GET" | "POST" | "PATCH" | "DELETE", route: string, body?: unknown): Promise<T>;
}

export function createServerClient(options: { url: string; token: string }): ServerClient {
  let base: URL;
  try {
    base = new URL(options.url);
  } catch {
    throw new ServerRequestError(
      `--server must be the app's address, like http://localhost:3000 (got ${options.url}).`,
      null,
      null,
    );
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new ServerRequestError(
      `--server must be an http or https address (got ${options.url}).`,
      null,
      null,
    );
  }
  const url = base.origin;
  return {
    url,
    async request<T>(method: "GET" | "POST" | "PATCH" | "DELETE", route: string, body?: unknown): Promise<T> {
      let response: Response;
      try {
        response = await fetch(`${url}${route}`, {
          method,
          headers: {
            authorization: `Bearer ${options.token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          redirect: "error",
          signal: AbortSignal.timeout(60_000),
        });
      } catch (error) {
        type Cause = { code?: string; message?: string; errors?: Array<{ code?: string }> };
        const reason = (error as { cause?: Cause }).cause;
        const cause =
          reason?.code ?? reason?.errors?.[0]?.code ?? reason?.message ?? (error as Error).message;
        throw new ServerRequestError(`cannot reach the app at ${url} (${cause}): is it running?`, null, null);
      }
      const text = await response.text();
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        // Not ours: a proxy's page, say. Reported below by status.
      }
      if (!response.ok) {
        const error = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
        const code = typeof error?.code === "string" ? error.code : null;
        const message = typeof error?.message === "string" ? error.message : text.slice(0, 200);
        const hint =
          response.status === 401 ? " (PLAYGROUND_TOKEN must be an API token of this app: tp_…)" : "";
        throw new ServerRequestError(
          `${url} answered ${response.status}${code ? ` ${code}` : ""}: ${message}${hint}`,
          response.status,
          code,
        );
      }
      if (json === null)
        throw new ServerRequestError(
          `${url} answered ${response.status} without a JSON body`,
          response.status,
          null,
        );
      return json as T;
    },
  };
}
