import { grantListQuerySchema } from "../grant-schemas";
import type { ApiOperation } from "./api-operation";

/** Scoped grants (docs/policies.md#grants): given by approvals, listed, revoked. */
export const GRANT_OPERATIONS: ApiOperation[] = [
  {
    method: "GET",
    path: "/api/grants",
    summary: "The live scoped grants, oldest first (those scoped to one run with `runId`)",
    role: "viewer",
    query: grantListQuerySchema,
    responses: {
      200: {
        description:
          "The grants, each with its tool, scope (for an outside agent's, the agent's owner too), condition, expiry, uses and giver",
      },
    },
  },
  {
    method: "DELETE",
    path: "/api/grants/[id]",
    summary: "Revoke a grant: calls planned from now on are gated again",
    description: "Only the person who gave the grant, or an admin.",
    role: "approver",
    responses: { 200: { description: "The grant as revoked, naming who revoked it" } },
    refusals: { 403: "Not the grant's giver, nor an admin", 404: "No live grant of that id" },
  },
];
