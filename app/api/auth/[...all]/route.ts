import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/lib/server/auth/auth";

// better-auth's own endpoints (sign in, sign out, session): rate limited, and they check the origin themselves.
export async function GET(request: Request) {
  return toNextJsHandler(await getAuth()).GET(request);
}

export async function POST(request: Request) {
  return toNextJsHandler(await getAuth()).POST(request);
}
