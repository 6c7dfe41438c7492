import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("committed migrations", () => {
  it("match db/schema.ts: drizzle-kit generates nothing new", () => {
    // drizzle-kit only accepts an output folder relative to the project.
    mkdirSync(".data", { recursive: true });
    const scratch = path.relative(process.cwd(), mkdtempSync(path.join(".data", "migration-check-")));
    try {
      cpSync(path.join("db", "migrations"), scratch, { recursive: true });
      const before = readdirSync(scratch).sort();
      const output = execFileSync(
        path.join("node_modules", ".bin", "drizzle-kit"),
        ["generate", "--dialect", "postgresql", "--schema", "./db/schema.ts", "--out", scratch],
        { encoding: "utf8", stdio: "pipe" },
      );
      expect(output).toContain("No schema changes");
      expect(readdirSync(scratch).sort()).toEqual(before);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
