import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { rowsOf } from "@/db/repositories/append-event";
import { createApprovalRepository } from "@/db/repositories/approval-repository";
import { createNotificationOutbox, type NotificationOutbox } from "@/db/repositories/notification-outbox";
import { testDriverName } from "@/db/testing/test-database";
import { buildRunTimeline } from "@/lib/runtime/view/run-timeline";
import {
  type NotificationChannel,
  notificationChannelSchema,
  readNotificationChannels,
} from "@/lib/server/config/notification-channels";
import { logWarning } from "@/lib/server/ops/logger";
import { captureLog } from "@/lib/server/testing/captured-log";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import {
  buildScenario,
  openScenarioHarness,
  type ScenarioHarness,
} from "@/lib/server/testing/scenario-harness";
import { startSmtpCapture as startSmtp } from "@/lib/server/testing/smtp-capture";
import { confirmDecisionLink, openDecisionLink } from "./decision-links";
import { createNotifier } from "./notifier";
import { createNotifierFromEnv } from "./notifier-from-env";
import { ownPreferencesSchema, readOwnPreferences, saveOwnPreferences } from "./own-preferences";
import { endOfQuietHours } from "./quiet-hours";
import { verifyWebhookSignature } from "./webhook-signature";

const SECRET = "a-test-signing-secret";
const APP_URL = "https://playground.example";

let harness: ScenarioHarness;
let outbox: NotificationOutbox;

/** A receiver on 127.0.0.1 that keeps what it is sent, and answers `status` (503 while "down"). */
interface Receiver {
  url: string;
  requests: Array<{ headers: Record<string, string | string[] | undefined>; body: string }>;
  status: number;
  server: Server;
}

async function startReceiver(): Promise<Receiver> {
  const receiver = { url: "", requests: [], status: 200 } as unknown as Receiver;
  receiver.server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      receiver.requests.push({ headers: request.headers, body });
      response.statusCode = receiver.status;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
  return receiver;
}

const receivers: Receiver[] = [];

beforeAll(async () => {
  harness = await openScenarioHarness();
  outbox = createNotificationOutbox(harness.handle.db);
  await harness.handle.db.execute(sql`
    insert into "user" (id, name, email, role) values
      ('u-ada', 'Ada', 'ada@example.com', 'approver'),
      ('u-bo', 'Bo', 'bo@example.com', 'viewer'),
      ('u-cy', 'Cy', 'cy@example.com', 'approver')`);
});

afterAll(async () => {
  for (const receiver of receivers) receiver.server.close();
  await harness?.close();
});

function channels(entries: Record<string, unknown>) {
  return {
    channels: new Map(
      Object.entries(entries).map(([name, raw]) => [name, notificationChannelSchema.parse(raw)]),
    ),
    problem: null,
  } as { channels: ReadonlyMap<string, NotificationChannel>; problem: null };
}

/** A clock the test moves by hand. */
function manualClock(start = Date.now()) {
  let at = start;
  return { now: () => new Date(at), advance: (ms: number) => (at += ms) };
}

async function startWaiting(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { runId, settled } = await harness.service.startRun(
    buildScenario({ ...gatedWriteScenario(name), ...extra }),
  );
  expect(await settled).toBe("WAITING_FOR_APPROVAL");
  return runId;
}

/** When the run's current wait started (its awaiting_approval event), for a clock to start there. */
async function waitStartedAt(runId: string): Promise<number> {
  const events = await harness.service.readEvents(runId, 0);
  const waiting = events.filter((event) => event.type === "awaiting_approval").at(-1);
  return Date.parse(waiting?.at ?? "");
}

describe(`notifications on ${testDriverName}`, () => {
  it("reads channels from PLAYGROUND_NOTIFICATIONS and names what is wrong", () => {
    const good = readNotificationChannels({
      PLAYGROUND_NOTIFICATIONS: JSON.stringify({
        ops: {
          kind: "webhook",
          url: "https://hooks.example/x",
          secretEnv: "HOOK_SECRET",
          to: { roles: ["approver"] },
        },
      }),
    });
    expect(good.problem).toBeNull();
    expect(good.channels.get("ops")).toMatchObject({ kind: "webhook", runs: "all", maxAttempts: 6 });
    const bad = readNotificationChannels({
      PLAYGROUND_NOTIFICATIONS: JSON.stringify({
        ops: { kind: "webhook", url: "ftp://x", secretEnv: "S", to: {} },
      }),
    });
    expect(bad.channels.size).toBe(0);
    expect(bad.problem).toMatch(/ops\.url: must be an http\(s\) URL/);
    expect(bad.problem).toMatch(/ops\.to: names nobody/);
  });

  it("a signed webhook verifies with the documented algorithm, and not with a changed body or an old timestamp", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      env: { HOOK_SECRET: SECRET },
      channels: channels({
        signed: { kind: "webhook", url: receiver.url, secretEnv: "HOOK_SECRET", to: { roles: ["approver"] } },
      }),
    });
    const runId = await startWaiting("signed hook");
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(1);
    const [{ headers, body }] = receiver.requests as [Receiver["requests"][number]];
    const timestamp = String(headers["x-playground-timestamp"]);
    const signature = String(headers["x-playground-signature"]);
    // The documented algorithm, written out: hex HMAC-SHA256 of "<timestamp>.<raw body>".
    expect(signature).toBe(`v1=${createHmac("sha256", SECRET).update(`${timestamp}.${body}`).digest("hex")}`);
    expect(verifyWebhookSignature({ secret: SECRET, body, timestamp, signature })).toEqual({ ok: true });
    expect(
      verifyWebhookSignature({
        secret: SECRET,
        body: body.replace("signed hook", "signed hoop"),
        timestamp,
        signature,
      }),
    ).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(
      verifyWebhookSignature({
        secret: SECRET,
        body,
        timestamp,
        signature,
        nowSeconds: Number(timestamp) + 301,
      }),
    ).toEqual({ ok: false, reason: "too_old" });
    const sent = JSON.parse(body);
    expect(sent.recipients.map((person: { email: string }) => person.email)).toEqual([
      "ada@example.com",
      "cy@example.com",
    ]);
    expect(sent.items).toHaveLength(1);
    expect(sent.items[0]).toMatchObject({
      kind: "waiting",
      runId,
      runName: "signed hook",
      expiresAt: null,
      links: { open: `${APP_URL}/runs/${runId}` },
    });
    expect(sent.items[0].calls).toEqual([
      { name: "write_file", arguments: '{"path":"a.txt","content":"A"}', isGated: true },
      { name: "read_file", arguments: '{"path":"a.txt"}', isGated: false },
    ]);
    expect(sent.items[0].turnDigestPrefix).toBe(sent.items[0].turnDigest.slice(0, 12));

    // Its end reaches the same hook, so a message there can say it's done.
    const report = await harness.service.getReport(runId);
    await harness.service.decide(runId, {
      approve: true,
      turnDigest: report?.pending?.turnDigest ?? "",
      actor: "Ada",
    });
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(2);
    expect(JSON.parse(receiver.requests[1]?.body ?? "").items[0]).toMatchObject({
      kind: "ended",
      outcome: "approved",
      by: "Ada",
    });
  });

  it("a cancelled wait is told to those who were told it waits, and to nobody else", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      channels: channels({ cancels: { kind: "slack", url: receiver.url, to: { roles: ["approver"] } } }),
    });
    const runId = await startWaiting("cancelled wait");
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(1);
    await harness.service.cancelRun(runId, "run");
    await expect.poll(async () => (await harness.service.getReport(runId))?.status).toBe("CANCELLED");
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(2);
    expect(JSON.parse(receiver.requests[1]?.body ?? "").text).toContain(
      "“cancelled wait” no longer waits: cancelled",
    );
    // A channel added later hears nothing of a wait it was never told of.
    const late = await startReceiver();
    receivers.push(late);
    const runId2 = await startWaiting("told to the first only");
    await notifier.sweep();
    const lateNotifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      channels: channels({ late: { kind: "slack", url: late.url, to: { roles: ["approver"] } } }),
    });
    await harness.service.cancelRun(runId2, "run");
    await expect.poll(async () => (await harness.service.getReport(runId2))?.status).toBe("CANCELLED");
    await lateNotifier.sweep();
    expect(late.requests).toHaveLength(0);
  });

  it("sends nothing for a run that never waits", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      env: { HOOK_SECRET: SECRET },
      channels: channels({ quiet: { kind: "slack", url: receiver.url, to: { roles: ["approver"] } } }),
    });
    const { runId, settled } = await harness.service.startRun(
      buildScenario({
        name: "ungated",
        model: {
          kind: "scripted",
          turns: [
            { calls: [{ name: "read_file", arguments: { path: "missing.txt" } }] },
            { calls: [{ name: "finish", arguments: { summary: "ok" } }] },
          ],
        },
      }),
    );
    expect(await settled).toBe("COMPLETED");
    await notifier.sweep();
    const noted = rowsOf<{ n: number }>(
      await harness.handle.db.execute(
        sql`select count(*)::int as n from notification_events where run_id = ${runId}::uuid`,
      ),
    );
    expect(Number(noted[0]?.n)).toBe(0);
    expect(receiver.requests).toHaveLength(0);
    expect(await outbox.listDeliveries("quiet")).toEqual([]);
  });

  it("ten runs waiting at once for the same people are one message per channel", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      channels: channels({
        slackish: { kind: "slack", url: receiver.url, to: { users: ["ada@example.com"] } },
      }),
    });
    const runIds = await Promise.all(
      Array.from({ length: 10 }, (_, index) => startWaiting(`batch ${index}`)),
    );
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(1);
    const body = JSON.parse(receiver.requests[0]?.body ?? "");
    const opened = body.blocks
      .filter((block: { type: string }) => block.type === "actions")
      .map((block: { elements: Array<{ url: string }> }) => block.elements[0]?.url);
    expect(opened.sort()).toEqual(runIds.map((id) => `${APP_URL}/runs/${id}`).sort());
    expect(body.blocks[1]).toMatchObject({ type: "context" });
    expect(body.blocks[1].elements[0].text).toContain("`write_file`");
    // A second sweep sends nothing more.
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(1);
  });

  it("a run's name reaches Slack escaped, in the text its notifications show as in the blocks", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      channels: channels({ escaped: { kind: "slack", url: receiver.url, to: { roles: ["approver"] } } }),
    });
    await startWaiting("<!channel> *urgent* <https://evil.example|click me> & more");
    await notifier.sweep();
    const body = JSON.parse(receiver.requests[0]?.body ?? "");
    const escapedName = "&lt;!channel&gt; *urgent* &lt;https://evil.example|click me&gt; &amp; more";
    expect(body.text).toContain(`“${escapedName}” waits for a decision on write_file`);
    expect(body.blocks[0].text.text).toBe(body.text);
    expect(receiver.requests[0]?.body).not.toContain("<!channel>");
    expect(receiver.requests[0]?.body).not.toContain("<https://evil.example");
  });

  it("three instances sweeping at once send each message once", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const instances = Array.from({ length: 3 }, () =>
      createNotifier({
        outbox: createNotificationOutbox(harness.handle.db),
        appUrl: APP_URL,
        channels: channels({ shared: { kind: "slack", url: receiver.url, to: { roles: ["approver"] } } }),
      }),
    );
    const runIds = await Promise.all(
      Array.from({ length: 6 }, (_, index) => startWaiting(`shared ${index}`)),
    );
    await Promise.all(instances.map((instance) => instance.sweep()));
    await Promise.all(instances.map((instance) => instance.sweep()));
    const opened = receiver.requests.flatMap((request) =>
      JSON.parse(request.body)
        .blocks.filter((block: { type: string }) => block.type === "actions")
        .map((block: { elements: Array<{ url: string }> }) => block.elements[0]?.url),
    );
    expect(opened.sort()).toEqual(runIds.map((id) => `${APP_URL}/runs/${id}`).sort());
    expect((await outbox.listDeliveries("shared")).length).toBe(receiver.requests.length);
    // Every noted event was expanded and let go: the notes never pile up.
    const left = rowsOf<{ n: number }>(
      await harness.handle.db.execute(sql`select count(*)::int as n from notification_events`),
    );
    expect(Number(left[0]?.n)).toBe(0);
  });

  it("a receiver that is down is tried again with backoff, and the delivery log shows each try", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.status = 503;
    const clock = manualClock();
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      env: { HOOK_SECRET: SECRET },
      now: clock.now,
      backoffMs: 1_000,
      channels: channels({
        flaky: {
          kind: "webhook",
          url: receiver.url,
          secretEnv: "HOOK_SECRET",
          to: { roles: ["approver"] },
          maxAttempts: 4,
        },
      }),
    });
    const warnings = captureLog();
    onTestFinished(() => warnings.restore());
    const runId = await startWaiting("flaky receiver");
    await notifier.sweep();
    // Not due yet: the first retry waits a second, the next two.
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(1);
    clock.advance(1_000);
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(2);
    clock.advance(1_999);
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(2);
    receiver.status = 204;
    clock.advance(1);
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(3);
    const log = await outbox.listDeliveries("flaky");
    expect(log.map(({ attempt, isDelivered, detail }) => ({ attempt, isDelivered, detail }))).toEqual([
      { attempt: 1, isDelivered: false, detail: "the receiver answered 503" },
      { attempt: 2, isDelivered: false, detail: "the receiver answered 503" },
      { attempt: 3, isDelivered: true, detail: "the receiver answered 204" },
    ]);
    // Each failed try is also a warning in the server's log, with no part of the message or secret.
    expect(
      warnings.lines.map(({ level, msg, channel, runIds, attempt, error }) => ({
        level,
        msg,
        channel,
        runIds,
        attempt,
        error,
      })),
    ).toEqual([
      {
        level: "warn",
        msg: "a notification could not be delivered",
        channel: "flaky",
        runIds: [runId],
        attempt: 1,
        error: "the receiver answered 503",
      },
      {
        level: "warn",
        msg: "a notification could not be delivered",
        channel: "flaky",
        runIds: [runId],
        attempt: 2,
        error: "the receiver answered 503",
      },
    ]);
    expect(JSON.stringify(warnings.lines)).not.toContain(SECRET);
    expect(JSON.stringify(warnings.lines)).not.toContain("flaky receiver");
    // Every try carried the same delivery id, for a receiver to drop repeats.
    expect(new Set(receiver.requests.map((request) => request.headers["x-playground-delivery"])).size).toBe(
      1,
    );
  });

  it("an SMTP server that refuses the connection is a warning per try, naming the channel, the run and the code", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      env: { SMTP_PASSWORD: SECRET, SMTP_USER: "playground" },
      channels: channels({
        unreachable: {
          kind: "email",
          from: "playground@example.com",
          smtp: { host: "127.0.0.1", port, userEnv: "SMTP_USER", passwordEnv: "SMTP_PASSWORD" },
          to: { users: ["ada@example.com"] },
        },
      }),
    });
    const warnings = captureLog();
    try {
      const runId = await startWaiting("nobody listens");
      await notifier.sweep();
      expect(warnings.lines).toEqual([
        expect.objectContaining({
          level: "warn",
          msg: "a notification could not be delivered",
          channel: "unreachable",
          runIds: [runId],
          attempt: 1,
          error: expect.stringContaining("ECONNREFUSED"),
          retryAt: expect.any(String),
        }),
      ]);
      expect(JSON.stringify(warnings.lines)).not.toContain(SECRET);
      expect(JSON.stringify(warnings.lines)).not.toContain("ada@example.com");
      expect((await outbox.listDeliveries("unreachable")).map((entry) => entry.isDelivered)).toEqual([false]);
    } finally {
      warnings.restore();
      notifier.close();
    }
  });

  it("at start, a configuration that cannot be read and a variable a channel names but is not set are warnings; unset is silent", () => {
    const warnings = captureLog();
    try {
      const start = (env: Record<string, string>) =>
        createNotifierFromEnv(harness.handle.db, logWarning, env).close();
      start({});
      expect(warnings.lines).toEqual([]);
      start({
        PLAYGROUND_NOTIFICATIONS: JSON.stringify({
          ops: { kind: "slack", url: "ftp://x", to: { roles: ["approver"] } },
        }),
      });
      expect(warnings.lines).toEqual([
        expect.objectContaining({
          level: "warn",
          msg: "the notification channels cannot be read: none is configured",
          problem: "PLAYGROUND_NOTIFICATIONS is invalid: ops.url: must be an http(s) URL",
        }),
      ]);
      warnings.lines.length = 0;
      start({
        SMTP_USER: "playground",
        PLAYGROUND_NOTIFICATIONS: JSON.stringify({
          ops: {
            kind: "webhook",
            url: "https://hooks.example/x",
            secretEnv: "OPS_HOOK_SECRET",
            to: { roles: ["approver"] },
          },
          mail: {
            kind: "email",
            from: "playground@example.com",
            smtp: { host: "smtp.example", userEnv: "SMTP_USER", passwordEnv: "SMTP_PASSWORD" },
            to: { roles: ["approver"] },
          },
        }),
      });
      expect(
        warnings.lines.map(({ level, msg, channel, field, variable }) => ({
          level,
          msg,
          channel,
          field,
          variable,
        })),
      ).toEqual([
        {
          level: "warn",
          msg: "a notification channel names a variable that is not set",
          channel: "ops",
          field: "secretEnv",
          variable: "OPS_HOOK_SECRET",
        },
        {
          level: "warn",
          msg: "a notification channel names a variable that is not set",
          channel: "mail",
          field: "smtp.passwordEnv",
          variable: "SMTP_PASSWORD",
        },
      ]);
    } finally {
      warnings.restore();
    }
  });

  it("e-mails each person their own message over SMTP, in text and HTML", async () => {
    const smtp = await startSmtp();
    const { mails, port } = smtp;
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      channels: channels({
        mail: {
          kind: "email",
          from: "Playground <playground@example.com>",
          smtp: { host: "127.0.0.1", port },
          to: { roles: ["approver"] },
        },
      }),
    });
    try {
      const runIds = [await startWaiting("mail one"), await startWaiting("mail two")];
      await notifier.sweep();
      expect(mails.map((mail) => mail.to).sort()).toEqual([["ada@example.com"], ["cy@example.com"]]);
      for (const mail of mails) {
        expect(mail.raw).toMatch(/Subject: 2 runs wait for your decision/);
        expect(mail.raw).toMatch(/multipart\/alternative/);
        expect(mail.raw).toMatch(/text\/plain/);
        expect(mail.raw).toMatch(/text\/html/);
        expect(
          mail.raw.match(/Approve: https:\/\/playground\.example\/decision-links\/[\w-]+/g),
        ).toHaveLength(2);
      }
      expect((await outbox.listDeliveries("mail")).every((entry) => entry.isDelivered)).toBe(true);
      // Once sent, the outbox keeps no link: only the message has them.
      const kept = rowsOf<{ n: number }>(
        await harness.handle.db.execute(
          sql`select count(*)::int as n from notification_messages where channel = 'mail' and item ? 'links'`,
        ),
      );
      expect(Number(kept[0]?.n)).toBe(0);

      // Ada's link approves her first run's turn, once, as Ada; the audit says it came by link.
      const adaMail = mails.find((mail) => mail.to[0] === "ada@example.com")?.raw ?? "";
      const approveLink = adaMail.match(/Approve: (\S+)/)?.[1] ?? "";
      const token = approveLink.split("/").at(-1) ?? "";
      const ada = { id: "u-ada", name: "Ada" };
      const opened = await openDecisionLink(harness.handle.db, harness.service, token, ada);
      expect(opened).toMatchObject({ ok: true, link: { choice: "approve", channel: "mail" } });
      const runId = opened.ok ? opened.link.runId : "";
      expect(runIds).toContain(runId);
      // Opening decided nothing.
      expect((await harness.service.getReport(runId))?.pending).not.toBeNull();
      expect(await confirmDecisionLink(harness.handle.db, harness.service, token, ada)).toEqual({
        ok: true,
        runId,
        choice: "approve",
        isLinkAlone: false,
      });
      const report = await harness.service.getReport(runId);
      expect(report?.decisions).toEqual([
        expect.objectContaining({
          approve: true,
          actor: "Ada",
          actorId: "u-ada",
          reason: 'Approved through a decision link sent by the channel "mail"',
        }),
      ]);
      // The audit keeps how it came as data: a link, signed in, sent by "mail".
      const audited = await harness.service.listAudit({ limit: 5, filter: { run: runId } });
      expect(audited.items).toEqual([
        expect.objectContaining({ actorId: "u-ada", via: "link", viaChannel: "mail" }),
      ]);
      expect(await confirmDecisionLink(harness.handle.db, harness.service, token, ada)).toMatchObject({
        ok: false,
        refusal: { code: "link_used", status: 410 },
      });
    } finally {
      notifier.close();
      await smtp.close();
    }
  });

  it("links start with BETTER_AUTH_URL, else with localhost at the server's PORT, on every channel", async () => {
    const hook = await startReceiver();
    const slack = await startReceiver();
    receivers.push(hook, slack);
    const smtp = await startSmtp();
    /** The links one waiting run's messages carry, sent by the notifier built from `env`. */
    async function linksSent(env: Record<string, string>, name: string) {
      const notifier = createNotifierFromEnv(harness.handle.db, () => {}, {
        ...env,
        HOOK_SECRET: SECRET,
        PLAYGROUND_NOTIFICATIONS: JSON.stringify({
          [`${name}-hook`]: {
            kind: "webhook",
            url: hook.url,
            secretEnv: "HOOK_SECRET",
            to: { roles: ["approver"] },
          },
          [`${name}-slack`]: { kind: "slack", url: slack.url, to: { roles: ["approver"] } },
          [`${name}-mail`]: {
            kind: "email",
            from: "playground@example.com",
            smtp: { host: "127.0.0.1", port: smtp.port },
            to: { users: ["ada@example.com"] },
          },
        }),
      });
      try {
        const runId = await startWaiting(name);
        await notifier.sweep();
        const mail = smtp.mails.at(-1)?.raw ?? "";
        return {
          runId,
          hook: JSON.parse(hook.requests.at(-1)?.body ?? "").items[0].links.open,
          slack: JSON.parse(slack.requests.at(-1)?.body ?? "").blocks.find(
            (block: { type: string }) => block.type === "actions",
          ).elements[0].url,
          mail: [...mail.matchAll(/(?:Approve|Deny|Open): (\S+)/g)].map((found) => found[1]),
        };
      } finally {
        notifier.close();
      }
    }
    try {
      const onPort = await linksSent({ PORT: "4991" }, "on-port");
      expect(onPort.hook).toBe(`http://localhost:4991/runs/${onPort.runId}`);
      expect(onPort.slack).toBe(`http://localhost:4991/runs/${onPort.runId}`);
      expect(onPort.mail).toEqual([
        expect.stringMatching(/^http:\/\/localhost:4991\/decision-links\/[\w-]+$/),
        expect.stringMatching(/^http:\/\/localhost:4991\/decision-links\/[\w-]+$/),
        expect.stringMatching(/^http:\/\/localhost:4991\/decision-links\/[\w-]+$/),
      ]);
      const atPublicUrl = await linksSent({ PORT: "4991", BETTER_AUTH_URL: APP_URL }, "public");
      expect(atPublicUrl.hook).toBe(`${APP_URL}/runs/${atPublicUrl.runId}`);
      expect(atPublicUrl.slack).toBe(`${APP_URL}/runs/${atPublicUrl.runId}`);
      expect(atPublicUrl.mail).toEqual([
        expect.stringMatching(/^https:\/\/playground\.example\/decision-links\/[\w-]+$/),
        expect.stringMatching(/^https:\/\/playground\.example\/decision-links\/[\w-]+$/),
        expect.stringMatching(/^https:\/\/playground\.example\/decision-links\/[\w-]+$/),
      ]);
    } finally {
      await smtp.close();
    }
  });

  it("the deadline approaching reaches those told the run waits, with when it expires", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      channels: channels({ deadlines: { kind: "slack", url: receiver.url, to: { roles: ["approver"] } } }),
    });
    const runId = await startWaiting("expiring wait", { approvalTimeoutSeconds: 3600 });
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(1);
    const expiresAt = (await harness.service.getReport(runId))?.pending?.expiresAt;
    expect(expiresAt).toBeTruthy();
    // Its last fifth, reached at once rather than waited for.
    await harness.handle.db.execute(
      sql`update runs set approval_warn_at = now() - interval '1 second' where id = ${runId}::uuid`,
    );
    expect(
      await createApprovalRepository(harness.handle.db).announceExpiringWaits(20),
    ).toBeGreaterThanOrEqual(1);
    await notifier.sweep();
    expect(receiver.requests).toHaveLength(2);
    const text = JSON.parse(receiver.requests[1]?.body ?? "").text;
    expect(text).toContain(`“expiring wait” still waits: its wait expires at ${expiresAt}`);
  });

  it("escalates after each step's delay on an injected clock, once across instances, audited, and stops when the wait ends", async () => {
    await harness.handle.db.execute(sql`
      insert into "user" (id, name, email, role) values ('u-di', 'Di', 'di@example.com', 'admin')
      on conflict do nothing`);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const runId = await startWaiting("escalated wait");
    const clock = manualClock(await waitStartedAt(runId));
    const escalating = {
      kind: "webhook",
      url: receiver.url,
      secretEnv: "HOOK_SECRET",
      to: { users: ["ada@example.com"] },
      escalation: [
        { afterMinutes: 10, to: { roles: ["admin"] } },
        { afterMinutes: 30, to: { users: ["cy@example.com"] } },
      ],
    };
    const instances = Array.from({ length: 2 }, () =>
      createNotifier({
        outbox: createNotificationOutbox(harness.handle.db),
        appUrl: APP_URL,
        env: { HOOK_SECRET: SECRET },
        now: clock.now,
        channels: channels({ escalating }),
      }),
    );
    const [first, second] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const auditedSteps = async () => harness.service.listEscalations({ limit: 50, run: runId });
    await first.sweep();
    expect(receiver.requests).toHaveLength(1);
    clock.advance(10 * 60_000 - 1);
    await Promise.all(instances.map((instance) => instance.sweep()));
    expect(receiver.requests).toHaveLength(1);
    expect(await auditedSteps()).toEqual([]);
    clock.advance(1);
    await Promise.all(instances.map((instance) => instance.sweep()));
    await Promise.all(instances.map((instance) => instance.sweep()));
    expect(receiver.requests).toHaveLength(2);
    // The audit lists the step once: when it fired on the clock, the chain's length and the group told.
    expect(await auditedSteps()).toEqual([
      expect.objectContaining({
        firedAt: clock.now().toISOString(),
        channel: "escalating",
        step: 1,
        steps: 2,
        afterMinutes: 10,
        to: { users: [], roles: ["admin"] },
      }),
    ]);
    const escalated = JSON.parse(receiver.requests[1]?.body ?? "");
    expect(escalated.items[0]).toMatchObject({
      kind: "waiting",
      runId,
      escalation: { step: 1, steps: 2, afterMinutes: 10, to: { users: [], roles: ["admin"] } },
    });
    expect(escalated.items[0].text).toContain("has waited 10 minutes");
    expect(escalated.recipients.map((person: { email: string }) => person.email)).toEqual([
      "ada@example.com",
      "di@example.com",
    ]);
    // The step is the run's own event, once, and the run page's view lists it.
    const steps = (await harness.service.readEvents(runId, 0)).filter(
      (event) => event.type === "approval_escalated",
    );
    expect(steps.map((event) => event.payload)).toEqual([
      expect.objectContaining({ channel: "escalating", step: 1, steps: 2, afterMinutes: 10 }),
    ]);
    const view = await harness.service.loadView(runId);
    expect(view?.pending?.escalations).toEqual([
      expect.objectContaining({ channel: "escalating", step: 1, to: { users: [], roles: ["admin"] } }),
    ]);
    // And its timeline keeps the step once the wait is over.
    expect(
      buildRunTimeline(await harness.service.readEvents(runId, 0)).markers.filter(
        (marker) => marker.kind === "escalated",
      ),
    ).toEqual([expect.objectContaining({ label: "escalated (step 1 of 2) through escalating" })]);

    // Decided before the second step: the chain stops, and the second step never fires.
    const report = await harness.service.getReport(runId);
    await harness.service.decide(runId, {
      approve: true,
      turnDigest: report?.pending?.turnDigest ?? "",
      actor: "Di",
    });
    await second.sweep();
    expect(receiver.requests).toHaveLength(3);
    expect(JSON.parse(receiver.requests[2]?.body ?? "").items[0]).toMatchObject({ kind: "ended" });
    clock.advance(60 * 60_000);
    await Promise.all(instances.map((instance) => instance.sweep()));
    expect(receiver.requests).toHaveLength(3);
    expect(
      (await harness.service.readEvents(runId, 0)).filter((event) => event.type === "approval_escalated"),
    ).toHaveLength(1);
    const chain = rowsOf<{ step: number; status: string }>(
      await harness.handle.db.execute(
        sql`select step, status from notification_escalations where run_id = ${runId}::uuid order by step`,
      ),
    );
    expect(chain.map((row) => [Number(row.step), row.status])).toEqual([
      [1, "fired"],
      [2, "stopped"],
    ]);
    // A stopped step escalated no one: the audit still lists only the first.
    expect((await auditedSteps()).map((entry) => entry.step)).toEqual([1]);
  });

  it("a person's opted-out channel sends them nothing, and their quiet hours hold a message until they end", async () => {
    const smtp = await startSmtp();
    // 23:00 UTC: Ada's quiet hours (22:00 to 07:00 UTC) have begun; Cy opted out of this channel.
    const clock = manualClock(Date.UTC(2027, 0, 5, 23, 0, 0));
    await outbox.setPreferences("u-ada", {
      mutedChannels: [],
      quietHours: { start: "22:00", end: "07:00", timeZone: "UTC" },
    });
    await outbox.setPreferences("u-cy", { mutedChannels: ["personal"], quietHours: null });
    const notifier = createNotifier({
      outbox,
      appUrl: APP_URL,
      now: clock.now,
      channels: channels({
        personal: {
          kind: "email",
          from: "Playground <playground@example.com>",
          smtp: { host: "127.0.0.1", port: smtp.port },
          to: { roles: ["approver"] },
        },
      }),
    });
    try {
      await startWaiting("quiet hours");
      await notifier.sweep();
      expect(smtp.mails).toHaveLength(0);
      clock.advance(8 * 60 * 60_000 - 1_000);
      await notifier.sweep();
      expect(smtp.mails).toHaveLength(0);
      clock.advance(1_000);
      await notifier.sweep();
      expect(smtp.mails.map((mail) => mail.to)).toEqual([["ada@example.com"]]);
      expect(smtp.mails[0]?.raw).toContain("quiet hours");
      // Its links last from when it was sent, not from when it was held.
      const expiry = rowsOf<{ expires_at: string | Date }>(
        await harness.handle.db.execute(
          sql`select distinct expires_at from decision_links where channel = 'personal' and user_id = 'u-ada'`,
        ),
      );
      expect(expiry.map((row) => new Date(row.expires_at).toISOString())).toEqual([
        "2027-01-07T07:00:00.000Z",
      ]);
      const log = await outbox.listDeliveries("personal");
      expect(log.map((entry) => [entry.recipient, entry.isDelivered])).toEqual([["u-ada", true]]);
    } finally {
      notifier.close();
      await smtp.close();
      await outbox.setPreferences("u-ada", { mutedChannels: [], quietHours: null });
      await outbox.setPreferences("u-cy", { mutedChannels: [], quietHours: null });
    }
  });

  it("a person's settings name what is wrong and store nothing then; right, they are kept", async () => {
    const env = {
      PLAYGROUND_NOTIFICATIONS: JSON.stringify({
        team: { kind: "slack", url: "https://hooks.example/x", to: { roles: ["approver"] } },
      }),
    };
    const db = harness.handle.db;
    const bad = ownPreferencesSchema.safeParse({
      mutedChannels: [],
      quietHours: { start: "25:00", end: "07:00", timeZone: "Mars/Olympus" },
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`)).toEqual([
      "quietHours.start: must be HH:MM, 00:00 to 23:59",
      "quietHours.timeZone: must be an IANA time zone, such as Europe/Paris",
    ]);
    await expect(
      saveOwnPreferences(db, "u-bo", { mutedChannels: ["team", "nope"], quietHours: null }, env),
    ).rejects.toThrow('mutedChannels: no channel is configured as "nope"');
    expect((await readOwnPreferences(db, "u-bo", env)).preferences).toEqual({
      mutedChannels: [],
      quietHours: null,
    });
    const quiet = { start: "22:00", end: "07:00", timeZone: "Europe/Paris" };
    await saveOwnPreferences(db, "u-bo", { mutedChannels: ["team"], quietHours: quiet }, env);
    expect(await readOwnPreferences(db, "u-bo", env)).toEqual({
      preferences: { mutedChannels: ["team"], quietHours: quiet },
      channels: [{ name: "team", kind: "slack" }],
    });
    await saveOwnPreferences(db, "u-bo", { mutedChannels: [], quietHours: null }, env);
  });

  it("quiet hours end at their end in the person's time zone, across midnight or not", () => {
    const overnight = { start: "22:00", end: "07:00", timeZone: "Europe/Paris" };
    // 21:30 UTC is 22:30 in Paris in January: held until 07:00 Paris, 06:00 UTC.
    expect(endOfQuietHours(overnight, new Date("2027-01-05T21:30:00Z"))?.toISOString()).toBe(
      "2027-01-06T06:00:00.000Z",
    );
    expect(endOfQuietHours(overnight, new Date("2027-01-05T20:59:00Z"))).toBeNull();
    const lunch = { start: "12:00", end: "13:00", timeZone: "UTC" };
    expect(endOfQuietHours(lunch, new Date("2027-01-05T12:30:15Z"))?.toISOString()).toBe(
      "2027-01-05T13:00:00.000Z",
    );
    expect(endOfQuietHours(lunch, new Date("2027-01-05T13:00:00Z"))).toBeNull();
    expect(endOfQuietHours(null, new Date())).toBeNull();
  });
});
