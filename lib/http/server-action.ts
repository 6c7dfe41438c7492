import "server-only";
import { headers } from "next/headers";
import type { z } from "zod";
import type { Identity } from "@/lib/server/auth/identity";
import { getLogger } from "@/lib/server/ops/logger";
import type { ActionResult } from "@/lib/wire/action-result";
import { RequestRefusal, validateInput } from "@/lib/wire/request-refusal";
import type { Role } from "@/lib/wire/roles";
import { toErrorBody } from "./error-response";
import { MAX_BODY_BYTES, measureUtf8Bytes } from "./request-limits";
import { requireIdentity } from "./require-identity";

export interface ServerActionOptions<Input> {
  /** The least role allowed to call the action. */
  role: Role;
  /** The JSON text whose size counts against `MAX_BODY_BYTES` (default: the whole input as JSON). */
  bodyOf?(input: Input): string;
}

/**
 * The body of every server action: refuses a call without an `Origin` (Next
 * checks a present one against the host; a missing one is no browser's
 * same-site request), establishes who calls and that they hold
 * `options.role`, validates the input with `schema`, applies the one body
 * limit, runs `work`, and maps any error through the one error table, so the
 * browser gets a code and status, never a thrown message.
 */
export async function serverAction<Schema extends z.ZodType, T>(
  schema: Schema,
  input: unknown,
  work: (input: z.infer<Schema>, identity: Identity) => Promise<T>,
  options: ServerActionOptions<z.infer<Schema>>,
): Promise<ActionResult<T>> {
  const requestId = crypto.randomUUID();
  let identity: Identity | null = null;
  try {
    const requestHeaders = await headers();
    if (!requestHeaders.get("origin")) {
      throw RequestRefusal.of("forbidden", "Server actions are only taken from this app's own pages.");
    }
    identity = await requireIdentity(requestHeaders, options.role);
    const data = validateInput(input, schema);
    const body = options.bodyOf ? options.bodyOf(data) : JSON.stringify(data);
    if (measureUtf8Bytes(body) > MAX_BODY_BYTES) {
      throw RequestRefusal.of(
        "payload_too_large",
        `The body is larger than the limit of ${MAX_BODY_BYTES} bytes.`,
      );
    }
    return { ok: true, data: await work(data, identity) };
  } catch (error) {
    // An action has no response headers to carry an id; a failure's body does, for the person to quote.
    const { status, body } = toErrorBody(error, requestId);
    if (status < 500) {
      getLogger().info(
        {
          requestId,
          action: work.name || "server action",
          status,
          code: body.error.code,
          userId: identity?.userId,
        },
        "action refused",
      );
    }
    return { ok: false, error: { ...body.error, status }, pending: body.pending };
  }
}
