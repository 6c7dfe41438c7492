import "server-only";
import type { z } from "zod";
import { formatIssuePath } from "@/lib/runtime";
import { invalidRequestResponse } from "./error-response";

/** Reads and validates a JSON body: the parsed value, or a 400 response naming every bad field. */
export async function readJsonBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
): Promise<{ ok: true; data: z.infer<Schema> } | { ok: false; response: Response }> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return {
      ok: false,
      response: invalidRequestResponse([{ path: "", message: "the body is not valid JSON" }]),
    };
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      response: invalidRequestResponse(
        parsed.error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message })),
      ),
    };
  }
  return { ok: true, data: parsed.data };
}
