import { defineConfig } from "drizzle-kit";

// Migrations are generated from db/schema.ts and committed; both drivers apply the same files.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
});
