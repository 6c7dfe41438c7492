/**
 * The client's HTTP: the agent token on every request, JSON in and out, the
 * server's refusals as {@link AgentClientError}s, and retries with backoff
 * when the server is unavailable (503, or no answer at all). Every agent
 * request but opening a run may be repeated safely: the same turn or report
 * sent again answers as the first did (docs/agent-api.md).
 */
import { AgentClientError, cancelledError, clientCodeOf } from "./agent-client-error";

export interface RetryOptions {
  /** Tries per request, the first included (default 6). */
  attempts: number;
  /** The first backoff (default 250 ms); it doubles at each try, with jitter. */
  baseDelayMs: number;
  /** The longest backoff, `Retry-After` included (default 10 s). */
  maxDelayMs: number;
}

export interface AgentHttpOptions {
  url: string;
  token: string;
  retry?: Partial<RetryOptions> | undefined;
  /** Another fetch (a proxy's, a test's); Node 22's global one by default. */
  fetch?: typeof fetch | undefined;
}

const DEFAULT_RETRY: RetryOptions = { attempts: 6, baseDelayMs: 250, maxDelayMs: 10_000 };

export class AgentHttp {
  readonly #base: string;
  readonly #token: string;
  readonly #retry: RetryOptions;
  readonly #fetch: typeof fetch;

  constructor(options: AgentHttpOptions) {
    if (!/^https?:\/\//.test(options.url)) {
      throw new AgentClientError(
        "rejected",
        `The server URL must start with http:// or https://: ${options.url}`,
      );
    }
    if (!options.token)
      throw new AgentClientError(
        "rejected",
        "An agent token is required (npm run playground -- token create … --role agent).",
      );
    this.#base = `${options.url.replace(/\/+$/, "")}/api/agent/runs`;
    this.#token = options.token;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** `path` is under `/api/agent/runs`; answers the parsed JSON body of a 2xx. */
  async request<T>(
    method: "GET" | "POST",
    path: string,
    options: {
      body?: unknown;
      signal?: AbortSignal | undefined;
      /** False for a request that must not be sent twice when its answer was lost (opening a run). */
      repeatable?: boolean;
    } = {},
  ): Promise<T> {
    const { signal } = options;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelledError(signal.reason);
      let response: Response;
      try {
        response = await this.#fetch(`${this.#base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.#token}`,
            ...(options.body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (signal?.aborted) throw cancelledError(signal.reason);
        // No answer at all (the server restarting, a dropped connection): tried again like a 503,
        // unless the request may have been done already and doing it twice would not be the same.
        if (attempt >= this.#retry.attempts || options.repeatable === false) {
          throw new AgentClientError(
            "unavailable",
            `The server did not answer ${method} ${this.#base}${path}: ${String(error)}`,
            {
              cause: error,
            },
          );
        }
        await this.#backoff(attempt, null, signal);
        continue;
      }
      if (response.ok) return (await response.json()) as T;
      const body = await readErrorBody(response);
      if (response.status === 503 && attempt < this.#retry.attempts) {
        await this.#backoff(attempt, response.headers.get("retry-after"), signal);
        continue;
      }
      const code = response.status === 503 ? "unavailable" : clientCodeOf(body.code, body.details);
      throw new AgentClientError(code, body.message, {
        serverCode: body.code,
        status: response.status,
        details: body.details,
      });
    }
  }

  async #backoff(attempt: number, retryAfter: string | null, signal: AbortSignal | undefined): Promise<void> {
    const exponential = this.#retry.baseDelayMs * 2 ** (attempt - 1);
    const jittered = exponential * (0.5 + Math.random() / 2);
    const asked = retryAfter !== null && /^\d+(\.\d+)?$/.test(retryAfter) ? Number(retryAfter) * 1_000 : 0;
    await sleep(Math.min(this.#retry.maxDelayMs, Math.max(jittered, asked)), signal);
  }
}

async function readErrorBody(
  response: Response,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  const text = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const error = parsed.error ?? {};
    return {
      code: typeof error.code === "string" ? error.code : `http_${response.status}`,
      message: typeof error.message === "string" ? error.message : `HTTP ${response.status}`,
      details:
        error.details && typeof error.details === "object" ? (error.details as Record<string, unknown>) : {},
    };
  } catch {
    return {
      code: `http_${response.status}`,
      message: `HTTP ${response.status}: ${text.slice(0, 200)}`,
      details: {},
    };
  }
}

/** Waits `ms`, or throws `cancelled` as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError(signal.reason));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError(signal?.reason));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
