import type { Role } from "@/lib/wire/roles";

// Its own module, apart from identity.ts (which reads it from auth): the run service names who acts
// without depending on how a request is authenticated.
/** Who a request comes from, as the server established it: never taken from the request body. */
export interface Identity {
  userId: string;
  /** The person's display name, at most MAX_PERSON_NAME_LENGTH characters (older names are cut). */
  name: string;
  email: string;
  role: Role;
  /** The person's own role (for a token, its owner's): `role` is less when the token sent is limited to less. */
  personRole: Role;
  /** A signed-in browser session, or an API token (`Authorization: Bearer tp_…`). */
  via: "session" | "token";
  /** The session's id (null for a token): signing out closes what it opened. */
  sessionId: string | null;
  /** The API token sent, when one was: an agent's runs belong to the token that opened them. */
  token?: { id: string; name: string };
}
