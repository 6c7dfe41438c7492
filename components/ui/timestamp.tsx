"use client";

import { type ReactNode, useSyncExternalStore } from "react";
import { formatTimestamp } from "./format-timestamp";

const subscribeToNothing = () => () => {};

/**
 * A stored time, the one way every page shows one (`formatTimestamp`): in the
 * viewer's time zone, the exact instant on hover. The server cannot know that
 * zone, so its HTML says UTC and the browser re-renders in its own zone right
 * after hydration (no mismatch, no guess).
 */
export function Timestamp({
  at,
  className,
  children,
}: {
  at: string;
  className?: string;
  /** Shown instead of the formatted time ("8 s" of a wait), the exact time still on hover. */
  children?: ReactNode;
}) {
  const isBrowser = useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
  const { text, exact } = formatTimestamp(at, isBrowser ? {} : { timeZone: "UTC", locale: "en-US" });
  return (
    <time dateTime={at} title={exact} className={className}>
      {children ?? text}
    </time>
  );
}
