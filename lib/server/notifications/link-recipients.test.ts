import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/repositories/append-event";
import { createNotificationOutbox } from "@/db/repositories/notification-outbox";
import { testDriverName } from "@/db/testing/test-database";
import { notificationChannelSchema } from "@/lib/server/config/notification-channels";
import { publishPolicy } from "@/lib/server/policies/policies";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";
import { startSmtpCapture } from "@/lib/server/testing/smtp-capture";
import { createNotifier } from "./notifier";

// A harness of its own: the live policy published here must not gate other files' runs.
let harness: ScenarioHarness;
beforeAll(async () => {
  harness = await openScenarioHarness();
  await harness.handle.db.execute(sql`
    insert into "user" (id, name, email, role) values
      ('u-ada', 'Ada', 'ada@example.com', 'approver'),
      ('u-cy', 'Cy', 'cy@example.com', 'approver'),
      ('u-di', 'Di', 'di@example.com', 'admin'),
      ('u-vi', 'Vi', 'vi@example.com', 'viewer')`);
});
afterAll(() => harness?.close());

const ADA_DECIDES_WRITES = `rules:
  - name: writes-by-ada
    when: call.name == "write_file"
    effect: require
    approvers: { people: ["ada@example.com"] }
`;

async function mailEveryone() {
  const smtp = await startSmtpCapture();
  const notifier = createNotifier({
    outbox: createNotificationOutbox(harness.handle.db),
    appUrl: "https://playground.example",
    channels: {
      channels: new Map([
        [
          "mail",
          notificationChannelSchema.parse({
            kind: "email",
            from: "Playground <playground@example.com>",
            smtp: { host: "127.0.0.1", port: smtp.port },
            to: { roles: ["viewer", "approver", "admin"] },
          }),
        ],
      ]),
      problem: null,
    },
  });
  return { smtp, notifier };
}

async function startWaiting(name: string) {
  const { runId, settled } = await harness.service.startRun(buildScenario(gatedWriteScenario(name)));
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  return runId;
}

/** Who was sent decision links for the run, by e-mail in the mail and by user id in the database. */
async function linkHolders(runId: string, mails: Array<{ to: string[]; raw: string }>) {
  const stored = rowsOf<{ user_id: string }>(
    await harness.handle.db.execute(
      sql`select distinct user_id from decision_links where run_id = ${runId}::uuid order by user_id`,
    ),
  );
  return {
    mailed: mails
      .filter((mail) => mail.raw.includes("/decision-links/"))
      .flatMap((mail) => mail.to)
      .sort(),
    stored: stored.map((row) => row.user_id),
  };
}

describe(`decision links go only to those who may decide, on ${testDriverName}`, () => {
  it("a viewer is told with an Open link only; approvers and admins get decision links", async () => {
    const { smtp, notifier } = await mailEveryone();
    try {
      const runId = await startWaiting("no policy");
      await notifier.sweep();
      expect(smtp.mails.map((mail) => mail.to[0]).sort()).toEqual([
        "ada@example.com",
        "cy@example.com",
        "di@example.com",
        "vi@example.com",
      ]);
      expect(await linkHolders(runId, smtp.mails)).toEqual({
        mailed: ["ada@example.com", "cy@example.com", "di@example.com"],
        stored: ["u-ada", "u-cy", "u-di"],
      });
      const viewers = smtp.mails.find((mail) => mail.to[0] === "vi@example.com")?.raw ?? "";
      expect(viewers).toContain(`Open: https://playground.example/runs/${runId}`);
      expect(viewers).not.toContain("Approve:");
    } finally {
      notifier.close();
      await smtp.close();
    }
  });

  it("when a policy rule names who may decide, only they get decision links, and the rest an Open link", async () => {
    await publishPolicy(
      harness.handle.db,
      { id: "u-di", name: "Di" },
      { document: ADA_DECIDES_WRITES, mode: "live" },
    );
    const { smtp, notifier } = await mailEveryone();
    try {
      const runId = await startWaiting("ada decides");
      await notifier.sweep();
      expect(smtp.mails).toHaveLength(4);
      expect(await linkHolders(runId, smtp.mails)).toEqual({
        mailed: ["ada@example.com"],
        stored: ["u-ada"],
      });
      for (const mail of smtp.mails.filter((candidate) => candidate.to[0] !== "ada@example.com")) {
        expect(mail.raw).toContain(`Open: https://playground.example/runs/${runId}`);
      }
    } finally {
      notifier.close();
      await smtp.close();
    }
  });
});
