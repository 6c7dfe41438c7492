import { z } from "zod";

/**
 * `z.record(z.string(), value)` for objects used as maps from names a person
 * chose (workspace paths, tool names, argument keys): zod's record leaves out
 * a key named `__proto__` without a word (assigning it would set the
 * result's prototype), so a file named `__proto__` vanished from a scenario.
 * This keeps every own key, `__proto__` included, as an own property of a
 * plain object, and names each problem by its key, as a record does.
 */
export function ownRecordSchema<Value extends z.ZodType>(
  valueSchema: Value,
): z.ZodType<Record<string, z.output<Value>>, Record<string, z.input<Value>>> {
  return (
    z
      .unknown()
      .transform((input, context) => {
        if (input === null || typeof input !== "object" || Array.isArray(input)) {
          context.addIssue({ code: "invalid_type", expected: "record", input });
          return z.NEVER;
        }
        const entries: Array<[string, z.output<Value>]> = [];
        for (const [key, value] of Object.entries(input)) {
          const parsed = valueSchema.safeParse(value);
          if (parsed.success) entries.push([key, parsed.data]);
          else
            for (const issue of parsed.error.issues)
              context.addIssue({ ...issue, path: [key, ...issue.path] });
        }
        // Object.fromEntries defines each key as an own property: `__proto__` is a key like any other.
        return Object.fromEntries(entries);
      })
      // A transform says nothing of its shape: the HTTP API's description (docs/openapi.md) reads it here.
      .meta({ type: "object", additionalProperties: describeValue(valueSchema) }) as unknown as z.ZodType<
      Record<string, z.output<Value>>,
      Record<string, z.input<Value>>
    >
  );
}

/** The value schema as JSON Schema, for the record's description; any value when it cannot be described. */
function describeValue(valueSchema: z.ZodType): Record<string, unknown> {
  try {
    const { $schema: _, ...described } = z.toJSONSchema(valueSchema, { io: "input", unrepresentable: "any" });
    return described;
  } catch {
    return {};
  }
}
