import { readFileSync } from "node:fs";
import path from "node:path";
import { type APIRequestContext, expect } from "@playwright/test";
import type { RunView } from "../../lib/runtime/events/run-view";
import { RESENT_ONCE_IF_RESET } from "../support/keep-alive";

/** One of the shared example scenarios, as a user would POST it. */
export function loadScenario(fileName: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(process.cwd(), "lib", "scenarios", fileName), "utf8"));
}

/** Starts a run over the HTTP API (`POST /api/runs`) and returns its id. */
export async function startRunOverApi(request: APIRequestContext, scenario: Record<string, unknown>) {
  const response = await request.post("/api/runs", { data: scenario });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { runId: string }).runId;
}

export async function getReport(request: APIRequestContext, runId: string) {
  const response = await request.get(`/api/runs/${runId}/report`, RESENT_ONCE_IF_RESET);
  expect(response.ok()).toBe(true);
  return response.json();
}

export async function getView(request: APIRequestContext, runId: string) {
  const response = await request.get(`/api/runs/${runId}/view`, RESENT_ONCE_IF_RESET);
  expect(response.ok()).toBe(true);
  return response.json() as Promise<RunView>;
}

export async function waitForStatus(request: APIRequestContext, runId: string, status: string) {
  await expect.poll(async () => (await getView(request, runId)).status, { timeout: 15_000 }).toBe(status);
}
