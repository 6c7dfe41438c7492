import { expect, test } from "@playwright/test";
import { getView, loadScenario, startRunOverApi, waitForStatus } from "../pages/api";
import { RunPage } from "../pages/run-page";

const tagged = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`;

/** A run that waits at a gated file tool called with these arguments, on a workspace with notes.txt. */
function fileGateScenario(name: string, call: { name: string; arguments: Record<string, unknown> }) {
  return {
    name,
    workspace: { "notes.txt": "alpha\nbeta\ngamma\n" },
    model: {
      kind: "scripted",
      turns: [
        { calls: [call, { name: "read_file", arguments: { path: "notes.txt" } }] },
        { calls: [{ name: "finish", arguments: { summary: "done" } }] },
      ],
    },
  };
}

async function decideOverApi(
  request: import("@playwright/test").APIRequestContext,
  runId: string,
  decision: { approve: boolean; reason?: string },
) {
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
  const turnDigest = (await getView(request, runId)).pending?.turnDigest;
  const response = await request.post(`/api/runs/${runId}/decision`, { data: { ...decision, turnDigest } });
  expect(response.ok()).toBe(true);
}

test("the runs list finds a run by name and by status, and opens it", async ({ page, request }) => {
  const tag = tagged("runs list");
  const waiting = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name: `${tag} a`,
  });
  const denied = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name: `${tag} b`,
  });
  await decideOverApi(request, denied, { approve: false, reason: "no" });
  await waitForStatus(request, waiting, "WAITING_FOR_APPROVAL");

  await page.goto("/runs");
  await page.getByRole("searchbox", { name: "Search" }).fill(tag);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`q=${encodeURIComponent(tag).replaceAll("%20", "\\+")}`));
  const rows = page.getByRole("table").getByRole("row");
  await expect(rows).toHaveCount(3); // the header and both runs, newest first
  await expect(rows.nth(1)).toContainText(`${tag} b`);
  await expect(rows.nth(2)).toContainText(`${tag} a`);
  await expect(rows.nth(2)).toContainText("Waiting for approval");

  await page.getByRole("combobox", { name: "Status" }).selectOption("WAITING_FOR_APPROVAL");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(rows).toHaveCount(2);
  await page.getByRole("link", { name: `${tag} a` }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${waiting}$`));
});

test("the audit lists who decided what, filters, and downloads as CSV", async ({ page, request }) => {
  const tag = tagged("audited");
  const runId = await startRunOverApi(request, { ...loadScenario("write-then-read-back.json"), name: tag });
  await decideOverApi(request, runId, { approve: false, reason: "wrong file" });

  await page.goto(`/audit?run=${encodeURIComponent(tag)}`);
  const row = page.getByRole("table", { name: "Audit rows, newest first" }).getByRole("row").nth(1);
  await expect(row).toContainText(tag);
  await expect(row).toContainText("Denied");
  await expect(row).toContainText("wrong file");
  await expect(row).toContainText("call 0 write_file");

  await page.getByRole("combobox", { name: "Outcome" }).selectOption("approved");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByText("No audit row matches.")).toBeVisible();

  await page.getByRole("combobox", { name: "Outcome" }).selectOption("denied");
  await page.getByRole("button", { name: "Filter" }).click();
  const download = page.getByRole("link", { name: "Download CSV of the matching rows" });
  const csv = await request.get((await download.getAttribute("href")) ?? "");
  expect(csv.headers()["content-type"]).toBe("text/csv; charset=utf-8");
  const text = await csv.text();
  expect(text.split("\n")[0]).toContain("decidedAt,outcome");
  expect(text).toContain(`${runId},${tag},0,write_file`);
  expect(text).toContain("wrong file");
});

test("a gated write shows the change to the file, a gated delete what it removes", async ({
  page,
  request,
}) => {
  const write = await startRunOverApi(
    request,
    fileGateScenario(tagged("write diff"), {
      name: "write_file",
      arguments: { path: "notes.txt", content: "alpha\nBETA\ngamma\n" },
    }),
  );
  await page.goto(`/runs/${write}`);
  const run = new RunPage(page);
  const diff = run.approvalPanel.getByRole("figure", { name: "Changes to notes.txt" });
  await expect(diff).toContainText("- beta");
  await expect(diff).toContainText("+ BETA");
  await expect(diff).toContainText("  alpha");

  const remove = await startRunOverApi(
    request,
    fileGateScenario(tagged("delete preview"), { name: "delete_file", arguments: { path: "notes.txt" } }),
  );
  await page.goto(`/runs/${remove}`);
  const removed = run.approvalPanel.getByRole("figure", { name: "notes.txt would be removed" });
  await expect(removed).toContainText("- alpha");
  await expect(removed).toContainText("- gamma");
});

test("the run page explains waves and barriers with its own numbers, and the event log opens to payloads", async ({
  page,
  request,
}) => {
  const runId = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name: tagged("explained"),
  });
  await page.goto(`/runs/${runId}`);
  const run = new RunPage(page);
  await expect(run.approvalPanel).toBeVisible();
  await page.getByText("How this works").click();
  await expect(
    page.getByText(/In this run, step 1 had 2 calls at a cap of 8: 1 wave, 1 barrier, 1 retained/),
  ).toBeVisible();
  await expect(page.getByText(/^The calls after a barrier are retained/)).toBeVisible();

  await page.getByText(/^Event log/).click();
  const first = page.getByRole("list", { name: "Event log" }).getByRole("listitem").first();
  await first.getByText("run_started").click();
  await expect(first.locator("pre")).toBeVisible();
  await expect(first.locator("pre")).toContainText('"name":');
});

test("the inbox filters and orders, names each wait, and `?` lists the keys", async ({ page, request }) => {
  const tag = tagged("inbox filter");
  const older = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name: `${tag} older`,
  });
  await waitForStatus(request, older, "WAITING_FOR_APPROVAL");
  const newer = await startRunOverApi(request, {
    ...loadScenario("write-then-read-back.json"),
    name: `${tag} newer`,
  });
  await waitForStatus(request, newer, "WAITING_FOR_APPROVAL");

  await page.goto("/inbox");
  await expect(page.getByText("Live", { exact: true })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search" }).fill(tag);
  await page.getByRole("button", { name: "Filter" }).click();
  const rows = page
    .getByRole("list", { name: "Waiting runs" })
    .getByRole("listitem", { name: new RegExp(tag) });
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toHaveAccessibleName(new RegExp(`^${tag} newer:`));
  await expect(rows.first()).toContainText(`run ${newer.slice(0, 8)} · step 1 · gate at call 0`);
  await expect(page).toHaveURL(/\?q=/);

  await page.getByRole("combobox", { name: "Order" }).selectOption("oldest");
  await expect(rows.first()).toHaveAccessibleName(new RegExp(`^${tag} older:`));

  // Still filtered after a reload: the address keeps it.
  await page.reload();
  await expect(rows.first()).toHaveAccessibleName(new RegExp(`^${tag} older:`));
  await expect(rows).toHaveCount(2);

  await page.getByRole("heading", { name: "Inbox" }).click();
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(help).toContainText("Approve the selected run's gate");
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();
});
