/**
 * Zod builds a fast path for object schemas with `new Function`, after probing
 * (when the first object schema is built) whether eval is allowed: under the
 * pages' Content-Security-Policy (no 'unsafe-eval') the probe itself is
 * reported as a violation. Its `jitless` setting skips both; it must be set
 * before zod builds any schema, so it is set here on the global zod reads its
 * settings from, without loading zod. Loaded first in the browser by
 * instrumentation-client.ts.
 */
const holder = globalThis as typeof globalThis & { __zod_globalConfig?: Record<string, unknown> };
holder.__zod_globalConfig = Object.assign(holder.__zod_globalConfig ?? {}, { jitless: true });

export {};
