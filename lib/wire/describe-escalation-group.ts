/** An escalation step's group as configured: "ada@example.com and the admins" (the run page and the audit say it alike). */
export function describeEscalationGroup(to: { users: string[]; roles: string[] }): string {
  const parts = [...to.users, ...to.roles.map((role) => `the ${role}s`)];
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "nobody");
}
