"use client";

import { useCallback, useSyncExternalStore } from "react";

const STORAGE_KEY = "tool-playground.actor";
const DEFAULT_ACTOR = "operator";
const listeners = new Set<() => void>();

function read(): string {
  try {
    return window.localStorage.getItem(STORAGE_KEY) ?? DEFAULT_ACTOR;
  } catch {
    return DEFAULT_ACTOR;
  }
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

/** Who decides, as recorded in the approval audit; remembered in this browser. */
export function useActorName(): [string, (name: string) => void] {
  const name = useSyncExternalStore(subscribe, read, () => DEFAULT_ACTOR);
  const setName = useCallback((next: string) => {
    try {
      window.localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // Storage may be unavailable (private mode): the name lasts for this page only.
    }
    for (const listener of listeners) listener();
  }, []);
  return [name, setName];
}
