import { agentWaitQuerySchema } from "@/lib/http/agent-queries";
import {
  agentFinishInputSchema,
  agentReportInputSchema,
  agentTurnInputSchema,
  openAgentRunInputSchema,
} from "@/lib/runtime";
import { type ApiOperation, jsonObject } from "./api-operation";

const ownRunOnly = "Only the token that opened the run; any other gets 404, as if the run did not exist.";
const agentAnswer = { description: "What the agent may do now (docs/agent-api.md)", schema: jsonObject };

/** The agent protocol: an agent that runs elsewhere drives its own run (docs/agent-api.md). */
export const AGENT_OPERATIONS: ApiOperation[] = [
  {
    method: "POST",
    path: "/api/agent/runs",
    summary: "Open an agent's run",
    role: "agent",
    body: openAgentRunInputSchema,
    responses: { 201: agentAnswer },
  },
  {
    method: "GET",
    path: "/api/agent/runs/[id]",
    summary: "Where the agent's run stands, without waiting",
    description: ownRunOnly,
    role: "agent",
    responses: { 200: agentAnswer },
    refusals: { 404: "No such run of this token" },
  },
  {
    method: "GET",
    path: "/api/agent/runs/[id]/next",
    summary: "Long poll: releases, the turn's outcome or the end",
    description: ownRunOnly,
    role: "agent",
    query: agentWaitQuerySchema,
    responses: { 200: agentAnswer },
    refusals: { 404: "No such run of this token" },
  },
  {
    method: "GET",
    path: "/api/agent/runs/[id]/events",
    summary: "The run's events as a stream (Server-Sent Events)",
    description: ownRunOnly,
    role: "agent",
    responses: { 200: { description: "An event stream", mediaType: "text/event-stream" } },
    refusals: { 404: "No such run of this token", 429: "Too many open streams" },
  },
  {
    method: "POST",
    path: "/api/agent/runs/[id]/turns",
    summary: "Submit the model's turn",
    description: ownRunOnly,
    role: "agent",
    body: agentTurnInputSchema,
    query: agentWaitQuerySchema,
    responses: { 200: agentAnswer },
    refusals: {
      404: "No such run of this token",
      409: "`turn_out_of_order`, `turn_conflict`",
      422: "`turn_refused`",
    },
  },
  {
    method: "POST",
    path: "/api/agent/runs/[id]/reports",
    summary: "Report released calls' outcomes, each fenced by its release token",
    role: "agent",
    body: agentReportInputSchema,
    responses: { 200: agentAnswer },
    refusals: { 404: "No such run of this token", 409: "`report_conflict`, `release_closed`" },
  },
  {
    method: "POST",
    path: "/api/agent/runs/[id]/heartbeat",
    summary: "Renew the agent's open releases",
    description: "Takes no body, or `{}`; any other body is refused (400).",
    role: "agent",
    responses: {
      200: {
        description: "The open releases' new lease: `{ runId, leaseExpiresAt }`",
        schema: jsonObject,
      },
    },
    refusals: { 404: "No such run of this token", 409: "`not_waiting`: the run has ended" },
  },
  {
    method: "POST",
    path: "/api/agent/runs/[id]/finish",
    summary: "End the run with the agent's final text",
    role: "agent",
    body: agentFinishInputSchema,
    query: agentWaitQuerySchema,
    responses: { 200: agentAnswer },
    refusals: {
      404: "No such run of this token",
      409: "`turn_out_of_order`, `turn_conflict` (this turn was finished with other text), `not_waiting` (the run has ended)",
    },
  },
  {
    method: "POST",
    path: "/api/agent/runs/[id]/cancel",
    summary: "Cancel the agent's own run",
    description:
      "Takes no body, or `{}`; any other body is refused (400) and cancels nothing. Answers once the run has ended (`CANCELLED`), or after `?wait=` seconds with the status as it stands.",
    role: "agent",
    query: agentWaitQuerySchema,
    responses: { 200: { description: "The run's status after the cancellation: `{ status }`" } },
    refusals: {
      404: "No such run of this token",
      409: "`not_waiting`: the run has ended, nothing to cancel",
    },
  },
];
