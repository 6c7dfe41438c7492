import { answerUnknownApiPath } from "@/lib/http/unknown-api-path";

// /api itself and every path under it that no route of its own matches: Next tries this optional
// catch-all last (a static or `[id]` segment, and /api/auth's own catch-all, are more specific), so
// it answers only what would otherwise be Next's HTML 404 page. Every method, with the one error
// body; HEAD is Next's, this GET without the body.
export const GET = answerUnknownApiPath;
export const POST = answerUnknownApiPath;
export const PUT = answerUnknownApiPath;
export const PATCH = answerUnknownApiPath;
export const DELETE = answerUnknownApiPath;
export const OPTIONS = answerUnknownApiPath;
