import { toNextJsHandler } from "better-auth/next-js";
import { getAuth, isDisabledAuthPath } from "@/lib/server/auth/auth";

// better-auth's own endpoints (sign in, sign out, session): rate limited, and they check the origin themselves.
// The ones the app does not offer (API keys, impersonation) answer 404 in every spelling of their path.
export async function GET(request: Request) {
  if (isDisabledAuthPath(request.url)) return notFound();
  return toNextJsHandler(await getAuth()).GET(request);
}

export async function POST(request: Request) {
  if (isDisabledAuthPath(request.url)) return notFound();
  return toNextJsHandler(await getAuth()).POST(request);
}

function notFound(): Response {
  return new Response("Not Found", { status: 404 });
}
