/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WebAssembly and data files from its own package folder, and
  // postgres-js is a Node client: both run unbundled on the server.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  // `next dev` serves its dev resources to localhost only; opened as 127.0.0.1 or [::1]
  // the page would never hydrate (buttons do nothing, nothing says why).
  allowedDevOrigins: ["127.0.0.1", "[::1]"],
};

export default nextConfig;
