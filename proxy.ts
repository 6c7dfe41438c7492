import { type NextRequest, NextResponse } from "next/server";
import { refuseDeepActionBody } from "@/lib/http/refuse-deep-action-body";

/**
 * Runs before Next decodes a server action's arguments, which it does
 * recursively: a body nested too deep is refused here with the 400 every
 * other surface gives (lib/http/refuse-deep-action-body.ts). Only requests
 * that call a server action come here.
 */
export async function proxy(request: NextRequest) {
  return (await refuseDeepActionBody(request)) ?? NextResponse.next();
}

export const config = {
  matcher: [{ source: "/:path*", has: [{ type: "header", key: "next-action" }] }],
};
