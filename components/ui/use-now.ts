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

/** A short duration a person reads at a glance: "8 s", "3 min", "2 h 5 min". */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
