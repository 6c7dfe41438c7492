import "server-only";
import { quoteSentText } from "@/lib/runtime";
import { RequestRefusal } from "@/lib/wire/request-refusal";

/**
 * Where an event stream resumes: the `Last-Event-ID` a reconnecting browser
 * sends, else `?after=`, else from the start (0). Either must be a whole
 * number; anything else is a 400 naming it, not a silent replay from zero.
 */
export function readResumeSeq(request: Request): number {
  const header = request.headers.get("last-event-id");
  const query = new URL(request.url).searchParams.get("after");
  const [source, raw] = header !== null ? ["Last-Event-ID", header] : ["after", query];
  if (raw === null || raw === "") return 0;
  if (!/^\d{1,9}$/.test(raw.trim())) {
    throw RequestRefusal.invalid([
      { path: source, message: `must be a whole number of events, got ${quoteSentText(raw)}` },
    ]);
  }
  return Number(raw.trim());
}
