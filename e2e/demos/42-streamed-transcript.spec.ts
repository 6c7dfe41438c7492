import { expect, test } from "@playwright/test";
import { startRunOverApi, waitForStatus } from "../pages/api";
import { RunPage } from "../pages/run-page";

// The e2e server's model endpoint "fake" (e2e/support/fake-model-server.mjs) streams, and holds a
// stream at a gate this test opens and releases: what the page shows is waited on, never a time.
const gates = () => `http://127.0.0.1:${process.env.E2E_FAKE_MODEL_PORT}/gates`;

test("the transcript shows the model's answer as it is generated, then the completion when it lands", async ({
  page,
  request,
}, testInfo) => {
  const marker = `streamed-${testInfo.workerIndex}-${Date.now()}`;
  const opened = await request.post(gates(), { data: { match: marker, afterChunks: 2 } });
  expect(opened.ok()).toBe(true);
  const gate = ((await opened.json()) as { id: string }).id;

  const runId = await startRunOverApi(request, {
    name: "a streamed answer",
    workspace: { "notes/todo.md": "- buy milk\n" },
    model: {
      kind: "openai-compatible",
      endpoint: "fake",
      prompt: `Read notes/todo.md, add '- water plants' to it, then finish. (${marker})`,
    },
  });
  // The model has said two words and is held there.
  await expect.poll(async () => (await (await request.get(`${gates()}/${gate}`)).json()).held).toBe(true);

  await page.goto(`/runs/${runId}`);
  await page.getByRole("tab", { name: "Transcript" }).click();
  const writing = page.getByRole("article", { name: "Model, step 1, writing" });
  await expect(writing).toContainText("Let me");
  // Only what was generated: the rest of the answer and the step itself have not come.
  await expect(writing).not.toContainText("first.");
  await expect(page.getByRole("article", { name: "Model, step 1", exact: true })).toHaveCount(0);
  // A live region that waits for the text to settle instead of reading every word out.
  const region = page.locator(".transcript-draft");
  await expect(region).toHaveAttribute("aria-live", "polite");
  await expect(region).toHaveAttribute("aria-busy", "true");
  await new RunPage(page).screenshot("the model's answer as it is generated", testInfo);

  await request.post(`${gates()}/${gate}/release`);
  // The completion lands as the step's event: the whole answer, in the transcript's list, and the draft is gone.
  const answered = page
    .getByRole("list", { name: "Transcript" })
    .getByRole("article", { name: "Model, step 1", exact: true });
  await expect(answered).toContainText("Let me read the notes first.");
  await expect(answered).toContainText("Asked for read_file.");
  await expect(writing).toHaveCount(0);
  await expect(region).toHaveAttribute("aria-busy", "false");
  await waitForStatus(request, runId, "WAITING_FOR_APPROVAL");
});
