const isDev = process.env.NODE_ENV !== "production";

/**
 * The Content-Security-Policy every page runs under. Next's pages carry
 * inline bootstrap scripts and React's inline styles, hence 'unsafe-inline'.
 * The playground checks a scenario as you type with the server's own schema,
 * and Ajv compiles custom tools' JSON Schemas into functions, hence
 * 'unsafe-eval' (a validator that interprets schemas would remove it).
 * Everything else (scripts, streams, fetches) comes from this origin only,
 * and no other site may frame the app. `next dev` also talks to its reload
 * socket.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  `connect-src 'self'${isDev ? " ws: wss:" : ""}`,
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
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
  // `next dev` serves its dev resources to localhost only; opened as 127.0.0.1 or [::1]
  // the page would never hydrate (buttons do nothing, nothing says why).
  allowedDevOrigins: ["127.0.0.1", "[::1]"],
  experimental: {
    // Above the app's own 2 MiB body limit (lib/http/request-limits.ts), which answers first with
    // the error body; this is only the backstop against a body too large to read at all.
    serverActions: { bodySizeLimit: "5mb" },
  },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
