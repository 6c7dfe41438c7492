/**
 * Defensive argument access for executors. Arguments were validated against
 * the tool's schema before dispatch; these checks keep an executor safe even
 * when called directly with unchecked input.
 */
import { ToolError } from "../errors";
import { describeType } from "../validation-messages";

/** The string value of `args[field]`; throws a `ToolError` naming the field otherwise. */
export function readStringArgument(args: Record<string, unknown>, field: string): string {
  const value = Object.hasOwn(args, field) ? args[field] : undefined;
  if (typeof value !== "string") {
    throw new ToolError(`${field}: must be ${describeType("string")}`);
  }
  return value;
}

/** Like `readStringArgument`, but an absent field gives `undefined`. */
export function readOptionalStringArgument(args: Record<string, unknown>, field: string): string | undefined {
  if (!Object.hasOwn(args, field) || args[field] === undefined) {
    return undefined;
  }
  return readStringArgument(args, field);
}
