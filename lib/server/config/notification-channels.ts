import "server-only";
import { z } from "zod";
import { ROLES } from "@/lib/wire/roles";
import { readJsonConfig } from "./read-json-config";

/** Which runs a channel hears about: every waiting run, or those matching any of these (docs/notifications.md#channels). */
const runFilterSchema = z
  .object({
    /** A gated call of one of these tools. */
    tools: z.array(z.string().min(1)).optional(),
    /** A gated call of a tool from one of these MCP servers. */
    servers: z.array(z.string().min(1)).optional(),
    /** The run's metadata (an agent run's `agent.metadata`) has every one of these keys with this value. */
    tags: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** Who a channel is for: accounts by e-mail, and everyone holding one of the roles. */
const audienceSchema = z
  .object({
    users: z.array(z.email()).default([]),
    roles: z.array(z.enum(ROLES)).default([]),
  })
  .strict()
  .refine((audience) => audience.users.length + audience.roles.length > 0, {
    error: "names nobody: give users or roles",
  });

/**
 * A channel's escalation chain (docs/notifications.md#escalation): each step tells its group, on
 * this channel, when nobody has decided `afterMinutes` after the wait started.
 */
const escalationSchema = z
  .array(
    z
      .object({
        afterMinutes: z
          .number()
          .int()
          .min(1)
          .max(30 * 24 * 60),
        to: audienceSchema,
      })
      .strict(),
  )
  .max(10)
  .default([])
  .refine(
    (steps) =>
      steps.every((step, index) => index === 0 || step.afterMinutes > (steps[index - 1]?.afterMinutes ?? 0)),
    { error: "afterMinutes must grow from each step to the next" },
  );

const common = {
  runs: z.union([z.literal("all"), runFilterSchema]).default("all"),
  to: audienceSchema,
  escalation: escalationSchema,
  /** How many times a message that fails is tried in all, with backoff between tries. */
  maxAttempts: z.number().int().min(1).max(20).default(6),
};

const hookUrlSchema = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

export const notificationChannelSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("webhook"),
      url: hookUrlSchema,
      /** The server's environment variable holding the signing secret (HMAC-SHA256). */
      secretEnv: z.string().min(1),
      ...common,
    })
    .strict(),
  z
    .object({
      kind: z.literal("slack"),
      /** A Slack incoming-webhook URL, or anything that takes Slack's `blocks`. */
      url: hookUrlSchema,
      ...common,
    })
    .strict(),
  z
    .object({
      kind: z.literal("email"),
      from: z.string().min(3),
      smtp: z
        .object({
          host: z.string().min(1),
          port: z.number().int().min(1).max(65_535).default(587),
          /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
          secure: z.boolean().default(false),
          userEnv: z.string().min(1).optional(),
          passwordEnv: z.string().min(1).optional(),
        })
        .strict(),
      /** How long its decision links last at most (they also expire with the wait). */
      linkTtlMinutes: z
        .number()
        .int()
        .min(1)
        .max(30 * 24 * 60)
        .default(24 * 60),
      /**
       * Off by default: its decision links then ask someone not signed in to sign in first. On, the
       * link alone lets its recipient confirm that one decision, signing them in to nothing else
       * (docs/notifications.md#the-link-alone, docs/security.md#decision-links-without-signing-in).
       */
      linkAlone: z.boolean().default(false),
      ...common,
    })
    .strict(),
]);

export type NotificationChannel = z.infer<typeof notificationChannelSchema>;
export type RunFilter = z.infer<typeof runFilterSchema>;
export type EscalationStep = NotificationChannel["escalation"][number];

/** True when the channel's decision links may decide for a recipient who is not signed in. */
export const allowsLinkAlone = (channels: NotificationChannels, name: string): boolean => {
  const channel = channels.channels.get(name);
  return channel?.kind === "email" && channel.linkAlone;
};

const channelNameSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "1-64 letters, digits, '_', '.' or '-'");

export const notificationChannelsSchema = z.record(channelNameSchema, notificationChannelSchema);

export interface NotificationChannels {
  channels: ReadonlyMap<string, NotificationChannel>;
  problem: string | null;
}

/**
 * The channels the operator configured in `PLAYGROUND_NOTIFICATIONS` (JSON) or the file named by
 * `PLAYGROUND_NOTIFICATIONS_FILE`, keyed by name, as model endpoints and MCP servers are. A
 * configuration that cannot be read configures nothing and says why.
 */
export function readNotificationChannels(
  env: Record<string, string | undefined> = process.env,
): NotificationChannels {
  const { value, problem } = readJsonConfig(env, "PLAYGROUND_NOTIFICATIONS", notificationChannelsSchema);
  return { channels: new Map(Object.entries(value ?? {})), problem };
}
