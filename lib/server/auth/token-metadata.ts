import { z } from "zod";
import { ROLES, type Role } from "@/lib/wire/roles";

const tokenMetadataSchema = z.object({ role: z.enum(ROLES) });

/**
 * The role a stored token's metadata limits it to, or null when the metadata
 * says nothing the app can read (null, not JSON, no known role). What the
 * column holds is decoded, never assumed: better-auth writes it as JSON text,
 * older versions stringified it twice, and a row may have been written by
 * anything. Callers treat null as the narrowest role.
 */
export function readTokenRole(metadata: unknown): Role | null {
  let value = metadata;
  // Text is JSON; text that decodes to text was stringified twice.
  for (let depth = 0; depth < 2 && typeof value === "string"; depth++) {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  const parsed = tokenMetadataSchema.safeParse(value);
  return parsed.success ? parsed.data.role : null;
}
