/**
 * A usage mistake naming the positional arguments a command does not take (`user list extra`),
 * rather than running the command as if they were not there.
 */
export function describeExtraArguments(command: string, extra: readonly string[]): string {
  const quoted = extra.map((argument) => JSON.stringify(argument)).join(" ");
  return `unexpected argument${extra.length === 1 ? "" : "s"} after ${command}: ${quoted}`;
}
