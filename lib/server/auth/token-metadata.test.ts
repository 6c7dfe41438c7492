import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manageAccounts, openDatabaseAccounts } from "@/bin/manage-accounts";
import { apikey } from "@/db/schema";
import { getDatabase } from "@/lib/server/database";
import { captureLog } from "@/lib/server/testing/captured-log";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { createTestAccounts, type TestAccount } from "@/lib/server/testing/test-accounts";
import { listTokens } from "./accounts";
import { readIdentity } from "./identity";
import { forgetAuthChange } from "./identity-cache";

// What the database may hold in a token's metadata is not always what the app wrote there.
let uninstall = async () => {};
let admin: TestAccount;

beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
  ({ admin } = await createTestAccounts(["admin"]));
});
afterAll(async () => {
  await uninstall();
});

describe("a stored token whose metadata is not { role }", () => {
  // better-auth refuses to verify a key whose metadata is not JSON at all: refused is no more than viewer.
  const actsAsViewer = { role: "viewer", personRole: "admin" };
  it.each([
    ["SQL null", null, actsAsViewer],
    ["JSON null", "null", actsAsViewer],
    ["not JSON", "{role: admin", null],
    ["an unknown role", '{"role":"superuser"}', actsAsViewer],
    ["a number", "42", actsAsViewer],
  ])(
    "(%s) is listed as limited to the narrowest role, and acts with no more",
    async (_label, metadata, acts) => {
      const { db } = await getDatabase();
      await db.update(apikey).set({ metadata }).where(eq(apikey.referenceId, admin.userId));
      // As the app does after a change of its own; the trigger's notification would reach this
      // process too, but a moment later (on Postgres), and this test is about reading, not caching.
      forgetAuthChange({ user: admin.userId });

      const listed = (await listTokens(db)).find((token) => token.ownerEmail === admin.email);
      expect(listed).toMatchObject({ role: "viewer", isRoleUnknown: true });
      const cli = await manageAccounts(await openDatabaseAccounts(await getDatabase()), {
        positionals: ["token", "list"],
      });
      expect(JSON.parse(cli)).toEqual(expect.arrayContaining([expect.objectContaining({ role: "viewer" })]));

      // A key better-auth cannot read is refused with one error line for the operator, who can mend
      // the row; a role the app does not know is not an error, it only narrows the token.
      const log = captureLog();
      try {
        const identity = await readIdentity(new Headers(admin.headers));
        if (acts === null) expect(identity).toBeNull();
        else expect(identity).toMatchObject(acts);
        const errors = log.lines.filter((line) => line.level === "error");
        if (acts === null)
          expect(errors).toEqual([
            expect.objectContaining({ component: "better-auth", msg: "Failed to validate API key" }),
          ]);
        else expect(errors).toEqual([]);
      } finally {
        log.restore();
      }
    },
  );

  it("still reads a token written as the app writes it", async () => {
    const { db } = await getDatabase();
    await db
      .update(apikey)
      .set({ metadata: JSON.stringify({ role: "approver" }) })
      .where(eq(apikey.referenceId, admin.userId));
    forgetAuthChange({ user: admin.userId });
    expect((await listTokens(db)).find((token) => token.ownerEmail === admin.email)).toMatchObject({
      role: "approver",
      isRoleUnknown: false,
    });
    expect(await readIdentity(new Headers(admin.headers))).toMatchObject({ role: "approver" });
  });
});
