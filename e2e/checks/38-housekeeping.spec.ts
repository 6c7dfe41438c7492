import { type APIRequestContext, expect, test } from "@playwright/test";
import { getView, startRunOverApi, waitForStatus } from "../pages/api";

// Run housekeeping (docs/housekeeping.md) as a person meets it: a run's header says when it ran,
// archiving takes it off the list until the filter asks, deleting removes it while the audit keeps
// its decisions; and the admin's token table reads on a phone.

/** A gated write with a name of its own, decided over the API, so it has ended with an audit row. */
async function finishedRun(request: APIRequestContext, name: string): Promise<string> {
  const runId = await startRunOverApi(request, {
    name,
    model: {
      kind: "scripted",
      turns: [
        { calls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
        { calls: [{ name: "finish", arguments: { summary: "ok" } }] },
      ],
    },
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const turnDigest = (await getView(request, runId)).pending?.turnDigest;
  const decided = await request.post(`/api/runs/${runId}/decision?wait=settled`, {
    data: { approve: true, turnDigest, reason: "housekeeping demo" },
  });
  expect(await decided.json()).toMatchObject({ status: "COMPLETED" });
  return runId;
}

test("a run is archived off the list, found with the filter, deleted, and its decision stays in the audit", async ({
  page,
  request,
}) => {
  const name = `tidy me ${Date.now()}`;
  const runId = await finishedRun(request, name);

  await page.goto(`/runs/${runId}`);
  // The header says when it started and ended, in the app's one format, and how long it took.
  const times = page.locator(".run-times");
  await expect(times).toContainText(/Started .+ · ended .+ · took \d+ s/);
  await expect(times.locator("time").first()).toHaveAttribute("title", /\(\+\d{3} ms\)/);

  await page.getByRole("button", { name: "Archive", exact: true }).click();
  await expect(page.getByRole("button", { name: "Unarchive" })).toBeVisible();

  await page.goto("/runs");
  await expect(page.getByRole("link", { name })).toHaveCount(0);
  const filters = page.getByRole("form", { name: "Filter runs" });
  await filters.getByRole("combobox", { name: "Archived" }).selectOption("only");
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/archived=only/);
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name }) });
  await expect(row).toContainText("Archived");

  await row.getByRole("link", { name }).click();
  await page.getByRole("button", { name: "Delete run" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete this run?" });
  await expect(confirm).toContainText("stay in the audit");
  await confirm.getByRole("button", { name: "Delete the run" }).click();
  await expect(page).toHaveURL(/\/runs\?deleted=/);
  await expect(page.getByRole("status").filter({ hasText: "was deleted" })).toContainText(name);
  expect((await request.get(`/api/runs/${runId}`)).status()).toBe(404);

  await page.goto(`/audit?run=${encodeURIComponent(name)}`);
  const auditRow = page.getByRole("table", { name: /audit/i }).getByRole("row").filter({ hasText: name });
  await expect(auditRow).toContainText("Deleted");
  await expect(auditRow).toContainText("housekeeping demo");
  const csv = await (await request.get(`/api/audit?format=csv&run=${encodeURIComponent(name)}`)).text();
  expect(csv).toContain(`${runId},${name}`);
});

test("a run that still waits offers no Delete, and the API refuses it with 409 run_active", async ({
  page,
  request,
}) => {
  const runId = await startRunOverApi(request, {
    name: `still waiting ${Date.now()}`,
    model: {
      kind: "scripted",
      turns: [{ calls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] }],
    },
  });
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  await page.goto(`/runs/${runId}`);
  await expect(page.locator(".run-times")).toContainText(/Started .+ · running for \d+/);
  await expect(page.getByRole("button", { name: "Archive", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete run" })).toHaveCount(0);
  const refused = await request.delete(`/api/runs/${runId}`);
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.code).toBe("run_active");
  await request.post(`/api/runs/${runId}/cancel`, { data: { scope: "run" } });
});

test("the token table reads on a 390 px phone, and a token's owner is picked from the users", async ({
  page,
  request,
}) => {
  // A person with a long name and e-mail: a select is as wide as its widest option.
  const stamp = Date.now();
  const added = await request.post("/api/users", {
    data: {
      email: `a.person.with.a.rather.long.address.${stamp}@departments.example.org`,
      name: "Alexandrina Wilhelmina Longname-Featherstonehaugh",
      role: "viewer",
      password: "long-enough-password",
    },
  });
  expect(added.status()).toBe(201);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/admin");
  const form = page.getByRole("form", { name: "Create a token" });
  const owner = form.getByRole("combobox", { name: "Owner" });
  const firstPerson = owner.locator("option:not([disabled])").first();
  await owner.selectOption({ value: (await firstPerson.getAttribute("value")) ?? "" });
  await form.getByRole("textbox", { name: "Token name" }).fill(`phone ${stamp}`);
  await form.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Copy this token now" })).toBeVisible();

  const table = page.getByRole("table", { name: "API tokens" });
  await expect(table.getByRole("row")).not.toHaveCount(0);
  const overflow = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth - window.innerWidth,
    table: (() => {
      const element = document.querySelector('table[aria-label="API tokens"]');
      return element ? element.scrollWidth - element.clientWidth : 0;
    })(),
  }));
  expect(overflow).toEqual({ page: 0, table: 0 });
});

test("the OpenAPI description is served to anyone and names the housekeeping routes", async ({
  playwright,
}) => {
  const stranger = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL });
  const response = await stranger.get("/api/openapi.json");
  expect(response.status()).toBe(200);
  const document = await response.json();
  expect(document.openapi).toBe("3.1.0");
  expect(Object.keys(document.paths["/api/runs/{id}/archive"])).toEqual(["post", "delete"]);
  expect(document.paths["/api/runs/{id}"].delete["x-least-role"]).toBe("operator");
  await stranger.dispose();
});
