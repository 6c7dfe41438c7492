/**
 * Turns validator output into short messages a model can act on, each naming
 * the field first ("path: is required", "content: must be text (a JSON string)").
 */
import type { ErrorObject } from "ajv";
import { describeType } from "../validation-messages";

/**
 * One message per schema error, in the validator's order, without duplicates.
 * The field is the JSON path of the offending value in dotted form
 * ("options.mode", "items.0"), or "arguments" for the object itself.
 */
export function formatSchemaErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  const messages = (errors ?? []).map(formatSchemaError);
  return [...new Set(messages)];
}

function formatSchemaError(error: ErrorObject): string {
  const field = convertPointerToField(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${joinField(field, String(params.missingProperty))}: is required`;
    case "additionalProperties":
      return `${joinField(field, String(params.additionalProperty))}: is not an allowed field`;
    case "enum":
      return `${field || "arguments"}: must be one of ${formatAllowedValues(params.allowedValues)}`;
    case "type":
      // In the words every other check uses (validation-messages.ts), not Ajv's "must be string,null".
      return `${field || "arguments"}: must be ${[params.type]
        .flat()
        .map((type) => describeType(String(type)))
        .join(" or ")}`;
    default:
      return `${field || "arguments"}: ${error.message ?? "is invalid"}`;
  }
}

/** "/options/mode" → "options.mode"; JSON Pointer escapes (~1, ~0) are undone. */
function convertPointerToField(pointer: string): string {
  if (pointer === "") {
    return "";
  }
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join(".");
}

function joinField(parent: string, child: string): string {
  return parent === "" ? child : `${parent}.${child}`;
}

function formatAllowedValues(values: unknown): string {
  return Array.isArray(values)
    ? values.map((value) => JSON.stringify(value)).join(", ")
    : "the allowed values";
}
