import { describe, expect, it } from "vitest";
import { LostClaimError, type RunStore, StoreUnavailableError } from "@/lib/runtime";
import { createMemoryRunStore } from "@/lib/runtime/testing/memory-run-store";
import { isNeverConnectedError, isTransientDatabaseError } from "./database-errors";
import { guardRunStore } from "./repositories/guard-run-store";

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
/** What drizzle throws around a driver's error. */
const wrapped = (cause: unknown) => new Error("Failed query: select 1", { cause });

describe("transient database errors", () => {
  it("knows a database out of reach from a refusal, wherever the driver's error is in the chain", () => {
    const refused = new AggregateError(
      [withCode("ECONNREFUSED"), withCode("ECONNREFUSED")],
      "connect failed",
    );
    for (const error of [
      refused,
      wrapped(withCode("57P01", "terminating connection due to administrator command")),
      wrapped(withCode("CONNECTION_CLOSED")),
      withCode("08006"),
      withCode("57P03", "the database system is starting up"),
      new Error("Connection terminated unexpectedly"),
    ]) {
      expect(isTransientDatabaseError(error), String(error)).toBe(true);
    }
    for (const error of [withCode("23505"), wrapped(withCode("42P01")), new Error("no run x"), null]) {
      expect(isTransientDatabaseError(error), String(error)).toBe(false);
    }
  });

  it("lets only a connection never made count as a statement never sent", () => {
    expect(isNeverConnectedError(wrapped(new AggregateError([withCode("ECONNREFUSED")])))).toBe(true);
    expect(isNeverConnectedError(withCode("57P03"))).toBe(true);
    expect(isNeverConnectedError(withCode("57P01"))).toBe(false);
    expect(isNeverConnectedError(withCode("CONNECTION_CLOSED"))).toBe(false);
  });
});

describe("guardRunStore", () => {
  function flaky(failures: Partial<Record<keyof RunStore, unknown[]>>) {
    const inner = createMemoryRunStore();
    const calls: string[] = [];
    const store = Object.fromEntries(
      Object.entries(inner).map(([name, method]) => [
        name,
        async (...args: unknown[]) => {
          calls.push(name);
          const next = failures[name as keyof RunStore]?.shift();
          if (next) throw next;
          return (method as (...a: unknown[]) => Promise<unknown>)(...args);
        },
      ]),
    ) as unknown as RunStore;
    return { inner, calls, guarded: guardRunStore(store) };
  }

  it("tries a read again after a transient failure, and answers once the database is back", async () => {
    const { guarded, calls } = flaky({ getRun: [withCode("57P01"), withCode("ECONNREFUSED")] });
    expect(await guarded.getRun(crypto.randomUUID())).toBeNull();
    expect(calls).toEqual(["getRun", "getRun", "getRun"]);
  });

  it("never repeats a write that may have reached the server: it is StoreUnavailableError at once", async () => {
    const cut = withCode("CONNECTION_CLOSED");
    const { guarded, calls } = flaky({ appendEvent: [cut] });
    const failure = await guarded
      .appendEvent("r", "t", { type: "run_released" } as never)
      .catch((error: unknown) => error);
    expect(StoreUnavailableError.isInstance(failure)).toBe(true);
    expect((failure as Error).cause).toBe(cut);
    expect(calls).toEqual(["appendEvent"]);
  });

  it("repeats a write whose connection was refused (nothing was sent), and passes refusals through", async () => {
    const { guarded, calls } = flaky({ appendEvent: [withCode("ECONNREFUSED")] });
    const failure = await guarded
      .appendEvent("no-such-run", "t", { type: "run_released" } as never)
      .catch((error: unknown) => error);
    expect(LostClaimError.isInstance(failure)).toBe(true);
    expect(calls).toEqual(["appendEvent", "appendEvent"]);
  });

  it("gives up after a few tries: a read failing throughout is StoreUnavailableError", async () => {
    const down = Array.from({ length: 10 }, () => withCode("ECONNREFUSED"));
    const { guarded, calls } = flaky({ readEvents: down });
    const failure = await guarded.readEvents("r", 0).catch((error: unknown) => error);
    expect(StoreUnavailableError.isInstance(failure)).toBe(true);
    expect(calls).toHaveLength(4);
  });
});
