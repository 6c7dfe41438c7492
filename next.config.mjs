/**
 * Pages get their Content-Security-Policy from proxy.ts, with a nonce of their
 * own (lib/http/content-security-policy.ts). API responses are data, never
 * run as a page: nothing may load from them or frame them.
 */
const apiContentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'";

const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WebAssembly and data files from its own package folder, and
  // postgres-js is a Node client: both run unbundled on the server.
  // The OpenTelemetry SDK keeps one global tracer provider per process: loaded once, unbundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "postgres",
    // Holds the embedded database folder's lock (db/folder-lock.ts): one copy per process, not one per bundle.
    "proper-lockfile",
    "@opentelemetry/sdk-trace",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/resources",
  ],
  poweredByHeader: false,
  logging: {
    // `next dev` prints every server action with its arguments: passwords (first administrator, added
    // users), reasons, edited arguments, whole scenarios. The app logs what it needs itself (pino).
    serverFunctions: false,
  },
  // The e2e suite's build (e2e/support/build-beside-data.mjs) skips the type check `next build` runs
  // over the whole project, tests included: `npm run typecheck` is that check (CI runs it), and a
  // type error in a test file must not stop the app from being built and driven.
  typescript: { ignoreBuildErrors: process.env.E2E_BUILD_SKIP_TYPECHECK === "1" },
  // `next dev` serves its dev resources to localhost only; opened as 127.0.0.1 or [::1]
  // the page would never hydrate (buttons do nothing, nothing says why).
  allowedDevOrigins: ["127.0.0.1", "[::1]"],
  experimental: {
    // Above the app's own 2 MiB body limit (lib/http/request-limits.ts), which answers first with
    // the error body; this is only the backstop against a body too large to read at all.
    serverActions: { bodySizeLimit: "5mb" },
    // `forbidden()`: a page above the visitor's role answers 403 with app/forbidden.tsx
    // (which says what limits them), not a bare not-found page (lib/http/require-page-identity.ts).
    authInterrupts: true,
  },
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders },
      {
        source: "/api/:path*",
        headers: [{ key: "Content-Security-Policy", value: apiContentSecurityPolicy }],
      },
    ];
  },
};

export default nextConfig;
