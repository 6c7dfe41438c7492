"use client";

import { createContext, type ReactNode, useContext } from "react";
import { hasRole, type Role } from "@/lib/wire/roles";

/** The signed-in person as pages show them; the server still checks every action itself. */
export interface Viewer {
  name: string;
  email: string;
  role: Role;
}

const ViewerContext = createContext<Viewer | null>(null);

export function ViewerProvider({ viewer, children }: { viewer: Viewer; children: ReactNode }) {
  return <ViewerContext.Provider value={viewer}>{children}</ViewerContext.Provider>;
}

/** Whether the signed-in person may do what `role` allows (hides controls they cannot use). */
export function useCan(role: Role): boolean {
  const viewer = useContext(ViewerContext);
  return viewer !== null && hasRole(viewer.role, role);
}
