import { cancelRequestSchema, decisionRequestSchema } from "@/lib/http/request-schemas";
import { scenarioSchema } from "@/lib/runtime";
import { insightsQuerySchema } from "@/lib/server/insights/approval-insights";
import {
  auditQuerySchema,
  escalationsQuerySchema,
  inboxQuerySchema,
  runListQuerySchema,
} from "@/lib/wire/list-filters";
import { type ApiOperation, jsonObject } from "./api-operation";

const archiveOutcome = {
  type: "object",
  properties: {
    runId: { type: "string", format: "uuid" },
    archived: { type: "boolean" },
    archivedAt: { type: ["string", "null"], format: "date-time" },
    changed: { type: "boolean", description: "false when the run already was so (nothing recorded)" },
  },
  required: ["runId", "archived", "archivedAt", "changed"],
};

/** Runs, decisions, the inbox and the audit: what people do with runs (README, docs/housekeeping.md). */
export const RUNS_OPERATIONS: ApiOperation[] = [
  {
    method: "POST",
    path: "/api/runs",
    summary: "Start a run from a scenario",
    role: "operator",
    body: scenarioSchema,
    queryParameters: [
      {
        name: "forkOf",
        description: "The run this one forks (with `step`): recorded as where it came from",
        schema: { type: "string", format: "uuid" },
      },
      {
        name: "step",
        description: "The step of `forkOf` it forks from, 1 for the first",
        schema: { type: "integer" },
      },
    ],
    responses: { 201: { description: "The run started: `{ runId }`, its address in Location" } },
    refusals: { 400: "A step the forked run does not have", 404: "No such run to fork" },
  },
  {
    method: "GET",
    path: "/api/runs",
    summary: "List runs, newest first (archived ones only when asked)",
    role: "viewer",
    query: runListQuerySchema,
    responses: {
      200: {
        description:
          "`{ items, total, totalCapped, nextCursor }`: `total` counts the matches up to 10,000, and `totalCapped` is true when more match",
      },
    },
  },
  {
    method: "GET",
    path: "/api/runs/[id]",
    summary: "The run's report",
    role: "viewer",
    responses: { 200: { description: "The run report", schema: jsonObject } },
    refusals: { 404: "No such run" },
  },
  {
    method: "DELETE",
    path: "/api/runs/[id]",
    summary: "Delete an ended run's data; its decisions stay in the audit",
    description: "Only the run's starter or an admin. Recorded in the run changes. docs/housekeeping.md.",
    role: "operator",
    responses: { 200: { description: "`{ runId, deleted: true }`" } },
    refusals: {
      404: "No such run (a deleted one says when and by whom)",
      409: "`run_active`: the run still runs or waits",
    },
  },
  {
    method: "POST",
    path: "/api/runs/[id]/archive",
    summary: "Archive the run: lists leave it out unless asked",
    role: "operator",
    responses: { 200: { description: "The archive state", schema: archiveOutcome } },
    refusals: { 404: "No such run" },
  },
  {
    method: "DELETE",
    path: "/api/runs/[id]/archive",
    summary: "Unarchive the run",
    role: "operator",
    responses: { 200: { description: "The archive state", schema: archiveOutcome } },
    refusals: { 404: "No such run" },
  },
  {
    method: "GET",
    path: "/api/runs/[id]/report",
    summary: "The run's report (the same as GET /api/runs/{id})",
    role: "viewer",
    responses: { 200: { description: "The run report", schema: jsonObject } },
    refusals: { 404: "No such run" },
  },
  {
    method: "GET",
    path: "/api/runs/[id]/view",
    summary: "The run as its page shows it",
    role: "viewer",
    responses: { 200: { description: "The run view", schema: jsonObject } },
    refusals: { 404: "No such run" },
  },
  {
    method: "GET",
    path: "/api/runs/[id]/events",
    summary: "The run's events as a stream (Server-Sent Events), resumable with Last-Event-ID",
    role: "viewer",
    responses: { 200: { description: "An event stream", mediaType: "text/event-stream" } },
    refusals: { 404: "No such run", 429: "Too many open streams" },
  },
  {
    method: "GET",
    path: "/api/runs/[id]/files",
    summary: "A file of the run's workspace",
    role: "viewer",
    queryParameters: [
      { name: "path", description: "The file's path in the workspace", schema: { type: "string" } },
    ],
    responses: { 200: { description: "The file" } },
    refusals: { 404: "No such run or file" },
  },
  {
    method: "GET",
    path: "/api/runs/[id]/scenario",
    summary: "The run as a scenario that replays it",
    role: "viewer",
    queryParameters: [
      { name: "notes", description: "`1`: `{ scenario, notes }`", schema: { enum: ["1"] } },
      { name: "download", description: "`1`: as a file to save", schema: { enum: ["1"] } },
    ],
    responses: { 200: { description: "The scenario", schema: jsonObject } },
    refusals: { 404: "No such run" },
  },
  {
    method: "GET",
    path: "/api/runs/[id]/fork",
    summary: "The run as a scenario forked from one of its steps (docs/transcript-and-fork.md)",
    role: "viewer",
    queryParameters: [
      { name: "step", description: "The step to fork from, 1 for the first", schema: { type: "integer" } },
    ],
    responses: { 200: { description: "`{ scenario, notes, forkedFrom }`", schema: jsonObject } },
    refusals: { 400: "A step the run does not have", 404: "No such run" },
  },
  {
    method: "GET",
    path: "/api/runs/[id]/trace",
    summary: "The run as an OpenTelemetry trace file (OTLP/JSON)",
    role: "viewer",
    responses: { 200: { description: "The trace", schema: jsonObject } },
    refusals: { 404: "No such run" },
  },
  {
    method: "POST",
    path: "/api/runs/[id]/decision",
    summary: "Approve or deny the waiting turn, as the caller",
    role: "approver",
    body: decisionRequestSchema,
    queryParameters: [
      {
        name: "wait",
        description:
          "`settled`: answer once the decided calls have run (an agent's run: once the decision took effect, as its calls are the agent's to run)",
        schema: { enum: ["settled"] },
      },
    ],
    responses: {
      200: {
        description:
          "`{ outcome, status }`: `outcome` is `executed`, `denied`, or `counted` (an approval toward a quorum it did not meet; the run still waits)",
      },
    },
    refusals: {
      403: "`forbidden`: the approver role is needed, or the run's starter approves under separation of duties; `not_rule_approver`: the policy rule that gated the call does not name the caller",
      404: "No such run",
      409: "`stale_turn` (the current turn in `pending`), `not_waiting`, `already_approved` (this person's approval of a turn that needs several is already counted)",
      422: "`turn_refused`, `unreadable_state`",
    },
  },
  {
    method: "POST",
    path: "/api/runs/[id]/cancel",
    summary: "Cancel the current turn or the whole run",
    role: "operator",
    body: cancelRequestSchema,
    responses: { 200: { description: "The run's status after the cancellation" } },
    refusals: { 404: "No such run", 409: "`not_waiting`: nothing to cancel" },
  },
  {
    method: "DELETE",
    path: "/api/runs/[id]/allowances/[tool]",
    summary: "Revoke an “always allow” of a tool",
    role: "approver",
    responses: { 200: { description: "The grant is gone" } },
    refusals: { 404: "No such run or grant" },
  },
  {
    method: "GET",
    path: "/api/inbox",
    summary: "The runs waiting for a decision, with their pending turns",
    role: "viewer",
    query: inboxQuerySchema,
    responses: { 200: { description: "`{ items, total, nextCursor }`" } },
  },
  {
    method: "GET",
    path: "/api/inbox/events",
    summary: "The inbox's first page as a stream (Server-Sent Events)",
    role: "viewer",
    query: inboxQuerySchema,
    responses: { 200: { description: "An event stream", mediaType: "text/event-stream" } },
    refusals: { 429: "Too many open streams" },
  },
  {
    method: "GET",
    path: "/api/audit",
    summary: "The approvals audit, newest first, as JSON pages or one CSV file",
    description: "Rows of deleted runs stay, with the run's name and `runDeleted: true`.",
    role: "viewer",
    query: auditQuerySchema,
    responses: {
      200: { description: "`{ items, nextBefore }`, or CSV with `?format=csv`" },
    },
  },
  {
    method: "GET",
    path: "/api/audit/escalations",
    summary: "The escalation steps that fired, newest first, as JSON or one CSV file",
    description:
      "Each step: when it fired, the run, the channel, the step of its chain and the group it told. A deleted run takes its steps with it.",
    role: "viewer",
    query: escalationsQuerySchema,
    responses: {
      200: { description: "`{ items }`, or CSV with `?format=csv`" },
    },
  },
  {
    method: "GET",
    path: "/api/insights",
    summary: "Where approvals wait: the insights page's numbers, as JSON or one table as CSV",
    role: "operator",
    query: insightsQuerySchema,
    responses: { 200: { description: "The insights, or CSV with `?format=csv&table=`" } },
  },
];
