import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/db/client";
import { openTestDatabase, testDriverName } from "@/db/testing/test-database";
import { countUsers, createFirstAdmin, listUsers, seedAdminFromEnv } from "./accounts";
import { createAuth } from "./auth";

// The first-admin set-up is a race on an empty database: the database decides its one winner.
let handles: Array<DatabaseHandle & { url?: string }> = [];

beforeAll(async () => {
  const first = await openTestDatabase();
  // On a server, a second instance with its own connections races the first.
  handles = first.url ? [first, { ...(await openDatabase({ url: first.url })) }] : [first];
});
afterAll(async () => {
  for (const handle of handles.slice(1)) await handle.close();
  await handles[0]?.close();
});

describe(`first administrator (${testDriverName})`, () => {
  it("is refused a name with a NUL (400, naming the field), and nothing is created", async () => {
    const handle = handles[0] as DatabaseHandle;
    const auth = createAuth(handle.db, "test-secret-0123456789abcdef");
    await expect(
      createFirstAdmin(auth, handle.db, {
        email: "nul@example.com",
        name: "Ada\u0000",
        password: "first-admin-password",
      }),
    ).rejects.toMatchObject({ code: "invalid_request", message: expect.stringContaining("name") });
    expect(await countUsers(handle.db)).toBe(0);
  });

  it("10 submissions at once on an empty database make exactly one admin", async () => {
    const auths = handles.map((handle) => ({
      auth: createAuth(handle.db, "test-secret-0123456789abcdef"),
      handle,
    }));
    const attempts = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) => {
        const { auth, handle } = auths[index % auths.length] as (typeof auths)[number];
        return createFirstAdmin(auth, handle.db, {
          email: `admin${index}@example.com`,
          name: `Admin ${index}`,
          password: "first-admin-password",
        });
      }),
    );
    const won = attempts.filter((attempt) => attempt.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === "rejected") {
        expect(attempt.reason).toMatchObject({
          code: "forbidden",
          message: expect.stringContaining("already"),
        });
      }
    }
    const db = (handles[0] as DatabaseHandle).db;
    expect(await countUsers(db)).toBe(1);
    expect((await listUsers(db)).map((user) => user.role)).toEqual(["admin"]);
  });

  it("seeding from the environment adds no second admin once one exists", async () => {
    const handle = handles[0] as DatabaseHandle;
    const auth = createAuth(handle.db, "test-secret-0123456789abcdef");
    expect(
      await seedAdminFromEnv(auth, handle.db, {
        ...process.env,
        PLAYGROUND_ADMIN_EMAIL: "seed@example.com",
        PLAYGROUND_ADMIN_PASSWORD: "seed-password-1",
      }),
    ).toBe(false);
    expect(await countUsers(handle.db)).toBe(1);
  });
});
