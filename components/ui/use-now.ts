"use client";

import { useEffect, useState } from "react";

/**
 * The current time, refreshed every `intervalMs`, for "waiting for 2 min"
 * labels. It starts at `initialNow` (the server's render time) so the first
 * client render matches the server's HTML.
 */
export function useNow(intervalMs: number, initialNow: number): number {
  const [now, setNow] = useState(initialNow);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
