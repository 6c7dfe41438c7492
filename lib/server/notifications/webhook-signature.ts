import { createHmac, timingSafeEqual } from "node:crypto";

/** The headers a signed webhook carries (docs/notifications.md#verifying-a-webhook). */
export const SIGNATURE_HEADER = "x-playground-signature";
export const TIMESTAMP_HEADER = "x-playground-timestamp";
export const DELIVERY_HEADER = "x-playground-delivery";

/** How old a timestamp a receiver should accept, by default: five minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `v1=` and the hex HMAC-SHA256, keyed by the secret, of `<timestamp>.<body>`. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: "malformed" | "too_old" | "mismatch" };

/**
 * What a receiver does: recompute the signature over the timestamp and the raw body, compare in
 * constant time, and refuse a timestamp further than `toleranceSeconds` from its own clock.
 */
export function verifyWebhookSignature(input: {
  secret: string;
  body: string;
  timestamp: string | null;
  signature: string | null;
  nowSeconds?: number;
  toleranceSeconds?: number;
}): SignatureCheck {
  const timestamp = Number(input.timestamp);
  if (!input.timestamp || !Number.isInteger(timestamp) || !input.signature)
    return { ok: false, reason: "malformed" };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: "too_old" };
  }
  const expected = Buffer.from(signWebhook(input.secret, timestamp, input.body));
  const received = Buffer.from(input.signature);
  if (expected.length !== received.length || !timingSafeEqual(expected, received)) {
    return { ok: false, reason: "mismatch" };
  }
  return { ok: true };
}
