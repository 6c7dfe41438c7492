import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readOwnPreferences } from "@/lib/server/notifications/own-preferences";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";
import type { TestAccount } from "@/lib/server/testing/test-accounts";
import type { Role } from "@/lib/wire/roles";

// Outside Next: the request's headers are what the test says, and there is no page cache to refresh.
const requestHeaders = vi.hoisted(() => ({ current: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => requestHeaders.current }));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

let accounts: Record<Role, TestAccount>;
let actions: typeof import("./notification-preferences");
const actAs = (role: Role) => {
  requestHeaders.current = new Headers({ origin: "http://test", ...accounts[role].headers });
};

const setup = setUpRouteTests();

beforeAll(async () => {
  vi.stubEnv(
    "PLAYGROUND_NOTIFICATIONS",
    JSON.stringify({ team: { kind: "slack", url: "https://hooks.example/x", to: { roles: ["approver"] } } }),
  );
  accounts = setup.accounts;
  actions = await import("./notification-preferences");
});

afterAll(() => {
  vi.unstubAllEnvs();
});

describe("your own notifications from /account", () => {
  it("anyone signed in sets their own, and a wrong setting is refused by name with nothing stored", async () => {
    actAs("viewer");
    const quiet = { start: "22:00", end: "07:00", timeZone: "Europe/Paris" };
    expect(
      await actions.saveNotificationPreferencesAction({ mutedChannels: ["team", "gone"], quietHours: quiet }),
    ).toMatchObject({
      ok: false,
      error: { code: "invalid_request", message: 'mutedChannels: no channel is configured as "gone"' },
    });
    expect(
      await actions.saveNotificationPreferencesAction({
        mutedChannels: [],
        quietHours: { ...quiet, end: "7am" },
      }),
    ).toMatchObject({ ok: false, error: { message: expect.stringContaining("quietHours.end") } });
    const { db } = setup.handle;
    const viewerId = accounts.viewer.userId;
    expect((await readOwnPreferences(db, viewerId)).preferences).toEqual({
      mutedChannels: [],
      quietHours: null,
    });

    expect(
      await actions.saveNotificationPreferencesAction({ mutedChannels: ["team"], quietHours: quiet }),
    ).toMatchObject({ ok: true, data: { mutedChannels: ["team"], quietHours: quiet } });
    expect(await readOwnPreferences(db, viewerId)).toEqual({
      preferences: { mutedChannels: ["team"], quietHours: quiet },
      channels: [{ name: "team", kind: "slack" }],
    });
    // Someone else's stay theirs.
    expect((await readOwnPreferences(db, accounts.admin.userId)).preferences.mutedChannels).toEqual([]);
  });
});
