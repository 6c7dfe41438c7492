import { describe, expect, it } from "vitest";
import { DEFAULT_PGLITE_DATA_DIR, databaseOptionsFromEnv as fromEnv } from "./client";

const databaseOptionsFromEnv = (env: Record<string, string>) => fromEnv(env as NodeJS.ProcessEnv);

describe("where a process keeps its data, from the environment", () => {
  it("is the embedded folder without DATABASE_URL", () => {
    expect(databaseOptionsFromEnv({})).toEqual({ dataDir: DEFAULT_PGLITE_DATA_DIR });
    expect(databaseOptionsFromEnv({ PGLITE_DATA_DIR: "/srv/data" })).toEqual({ dataDir: "/srv/data" });
  });

  it("is the server, reached directly or through a pooler with the server's own address beside it", () => {
    expect(databaseOptionsFromEnv({ DATABASE_URL: "postgres://db/app" })).toEqual({
      url: "postgres://db/app",
    });
    expect(
      databaseOptionsFromEnv({
        DATABASE_URL: "postgres://pgbouncer:6432/app",
        DATABASE_DIRECT_URL: "postgres://db:5432/app",
      }),
    ).toEqual({ url: "postgres://pgbouncer:6432/app", directUrl: "postgres://db:5432/app" });
  });
});
