/** Formats a zod path the way a person reads it: `tools[0].parameters`, `workspace["../x"]`. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      const key = String(segment);
      if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `[${JSON.stringify(key)}]`;
      return index === 0 ? key : `.${key}`;
    })
    .join("");
}
