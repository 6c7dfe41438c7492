import {
  backtestPolicySchema,
  checkPolicySchema,
  disagreementsQuerySchema,
  publishPolicySchema,
} from "../policy-schemas";
import type { ApiOperation } from "./api-operation";

/** Approval policies (docs/policies.md): publish, list, backtest, and where the shadow disagreed. */
export const POLICY_OPERATIONS: ApiOperation[] = [
  {
    method: "GET",
    path: "/api/policies",
    summary: "Every published version of the approval policy, newest first",
    role: "admin",
    responses: { 200: { description: "The versions, each with its document, mode and publisher" } },
  },
  {
    method: "POST",
    path: "/api/policies",
    summary: "Publish a policy version, live or in shadow",
    role: "admin",
    body: publishPolicySchema,
    responses: { 201: { description: "The stored version" } },
    refusals: { 422: "`policy_refused`: `details.problems` lists each problem with its line" },
  },
  {
    method: "POST",
    path: "/api/policies/backtest",
    summary:
      "Run a candidate policy over recorded runs (optionally one tool's calls, some runs): per call what it would have done, totals and approver workload per day",
    role: "admin",
    body: backtestPolicySchema,
    responses: { 200: { description: "`{ rows, totals, workload, truncated }`" } },
    refusals: { 422: "`policy_refused`: `details.problems` lists each problem with its line" },
  },
  {
    method: "POST",
    path: "/api/policies/check",
    summary: "Check a policy document as publishing would, without publishing it",
    role: "admin",
    body: checkPolicySchema,
    responses: { 200: { description: "`{ ok, problems }`: each problem with its line, path and reason" } },
  },
  {
    method: "GET",
    path: "/api/policies/disagreements",
    summary: "Calls where the shadow policy would have done otherwise than what was done",
    role: "admin",
    query: disagreementsQuerySchema,
    responses: { 200: { description: "The calls, each with the live and the shadow outcome" } },
  },
];
