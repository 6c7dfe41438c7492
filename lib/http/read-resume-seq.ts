import "server-only";
import { invalidRequestResponse } from "./error-response";

/**
 * Where an event stream resumes: the `Last-Event-ID` a reconnecting browser
 * sends, else `?after=`, else from the start (0). Either must be a whole
 * number; anything else is a 400 naming it, not a silent replay from zero.
 */
export function readResumeSeq(
  request: Request,
): { ok: true; seq: number } | { ok: false; response: Response } {
  const header = request.headers.get("last-event-id");
  const query = new URL(request.url).searchParams.get("after");
  const [source, raw] = header !== null ? ["Last-Event-ID", header] : ["after", query];
  if (raw === null || raw === "") return { ok: true, seq: 0 };
  if (!/^\d{1,9}$/.test(raw.trim())) {
    return {
      ok: false,
      response: invalidRequestResponse([
        { path: source, message: `must be a whole number of events, got ${JSON.stringify(raw)}` },
      ]),
    };
  }
  return { ok: true, seq: Number(raw.trim()) };
}
