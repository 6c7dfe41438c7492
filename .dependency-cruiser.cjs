/**
 * The layers of docs/architecture.md ("The layers and their arrows"), checked by
 * `npm run depcruise` (and CI). Each rule below is one line of that section; change
 * both together.
 *
 * Production code only, except for cycles: a test (`*.test.ts`, `*.contract.ts`) and a
 * `testing/` folder may reach up to set up the whole stack (a route test opens the
 * database, a harness serves routes).
 */
const TESTS = "(^|/)testing/|\\.(test|contract)\\.tsx?$|^e2e/|^bench/";

/** Test files proper: lib/runtime/testing/ (the memory store, the fault decorator) stays framework-free too. */
const TEST_FILES = "\\.(test|contract)\\.tsx?$";

/** What `lib/runtime` may import besides itself: portable libraries only. */
const RUNTIME_PACKAGES = [
  "zod",
  "ajv",
  "redos-detector",
  "@opentelemetry/api",
  "@noble/hashes",
  "@marcbachmann/cel-js",
  "yaml",
  "jsonc-parser",
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment:
        "No import cycle anywhere: a cycle means two modules are one idea, or a type lives in the wrong one.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "runtime-imports-nothing-of-the-host",
      comment:
        "lib/runtime is framework-free and runs in a browser: no Next, React, drizzle or node:* module, nothing of the host (app, components, lib/server, lib/http, db, …); only itself and portable libraries.",
      severity: "error",
      from: { path: "^lib/runtime/", pathNot: TEST_FILES },
      to: {
        pathNot: [
          "^lib/runtime/",
          ...RUNTIME_PACKAGES.map((name) => `^node_modules/${name.replace("/", "\\/")}/`),
        ],
      },
    },
    {
      name: "wire-depends-on-nothing-server-side",
      comment:
        "lib/wire holds the shapes browser and server both read (inbox rows, list filters, action results, the error table): only itself, the runtime and zod.",
      severity: "error",
      from: { path: "^lib/wire/", pathNot: TESTS },
      to: { pathNot: ["^lib/wire/", "^lib/runtime/", "^node_modules/zod/"] },
    },
    {
      name: "store-below-host",
      comment: "db implements the runtime's ports and the wire's filters; it calls nothing above it.",
      severity: "error",
      from: { path: "^db/", pathNot: TESTS },
      to: { path: "^(app|components|bin|lib/server|lib/http|lib/queries)/" },
    },
    {
      name: "host-below-surfaces",
      comment:
        "lib/server is the host: it calls the store and the runtime, never the request layer (lib/http), the pages, the components or the browser's cache helpers.",
      severity: "error",
      from: { path: "^lib/server/", pathNot: TESTS },
      to: { path: "^(app|components|bin|lib/http|lib/queries)/" },
    },
    {
      name: "http-below-surfaces",
      comment:
        "lib/http wraps route handlers and server actions; it calls the host, never the store directly, the pages or the components.",
      severity: "error",
      from: { path: "^lib/http/", pathNot: TESTS },
      to: { path: "^(app|components|bin|db|lib/queries)/" },
    },
    {
      name: "app-reaches-the-store-through-the-host",
      comment: "No page, route or action imports db/: it goes through lib/server.",
      severity: "error",
      from: { path: "^app/", pathNot: TESTS },
      to: { path: "^db/" },
    },
    {
      name: "components-call-only-actions-upward",
      comment:
        "components → app/actions (server actions) is the one arrow that goes up; no other app/ module.",
      severity: "error",
      from: { path: "^components/", pathNot: TESTS },
      to: { path: "^app/", pathNot: "^app/actions/" },
    },
    {
      name: "components-import-no-server-code",
      comment:
        "A component never imports server code (lib/server, lib/http, db); a type-only import of a shape a server function returns is allowed, as it vanishes from the bundle.",
      severity: "error",
      from: { path: "^(components|lib/queries)/", pathNot: TESTS },
      to: { path: "^(lib/server|lib/http|db)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "browser-cache-helpers-below-components",
      comment:
        "lib/queries (the browser's cache helpers) serves components; it imports no page or component.",
      severity: "error",
      from: { path: "^lib/queries/", pathNot: TESTS },
      to: { path: "^(app|components)/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing package.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(\\.next|\\.data)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};
