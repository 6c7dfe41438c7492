import type { ToolGrant } from "@/lib/runtime/browser";

/**
 * A grant as `GET /api/grants` lists it: for a grant scoped to the runs one person starts, that
 * person's name as it is now (the grant keeps only their id, which nobody reading /grants knows);
 * null for other scopes, and for an account that no longer exists.
 */
export type ListedGrant = ToolGrant & { starterName: string | null };
