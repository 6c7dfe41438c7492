import { createRequire } from "node:module";
import path from "node:path";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";

// What our patch of postgres.js (patches/postgres+*.patch, applied by `npm install`) is for: memory
// the driver kept per query (docs/architecture.md#writes-on-the-hot-path).
const require = createRequire(import.meta.url);
const driverFolder = path.dirname(require.resolve("postgres"));
const Queue = require(path.join(driverFolder, "queue.js")) as <T>(initial?: T[]) => {
  push(item: T): T;
  shift(): T | undefined;
  readonly length: number;
};

type Settle = (value: unknown) => void;
const { Query } = require(path.join(driverFolder, "query.js")) as {
  Query: new (
    strings: string[],
    args: unknown[],
    handler: (query: { resolve: Settle; reject: Settle }) => void,
    canceller: null,
    options: object,
  ) => Promise<unknown> & { resolve: Settle; reject: Settle; active: boolean };
};

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as (options?: { type: "minor" }) => void;
const oldSpaceUsed = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === "old_space")?.space_used_size ?? 0;

/** Twice: what the first collection frees can let the second free more. */
function collectFully(): void {
  collect();
  collect();
}

function heapAfterCollecting(): number {
  collectFully();
  return process.memoryUsage().heapUsed;
}

// The pool keeps its connections in queues; the idle one is shifted for every query and the
// connection pushed back after, so it is never empty when shifted. Unpatched, each shift left a spent
// slot behind for good (about 10 bytes a query, for as long as a server lives); the patch drops the
// spent slots once they are half.
describe("the Postgres driver's connection queue", () => {
  it("keeps no memory per query when it is never empty, as the pool's idle connections are", () => {
    const idle = Queue(Array.from({ length: 10 }, (_, index) => ({ connection: index })));
    const before = heapAfterCollecting();
    for (let query = 0; query < 1_000_000; query += 1) {
      const connection = idle.shift();
      if (connection) idle.push(connection);
    }
    const grown = heapAfterCollecting() - before;
    expect(idle.length).toBe(10);
    // A slot kept per query would be 8 MB here at least.
    expect(grown).toBeLessThan(2_000_000);
  });

  it("still hands the connections out in order", () => {
    const queue = Queue<number>();
    const out: number[] = [];
    for (let item = 0; item < 5_000; item += 1) {
      queue.push(item);
      if (item % 3 === 2) out.push(queue.shift() as number, queue.shift() as number);
    }
    while (queue.length > 0) out.push(queue.shift() as number);
    expect(out).toEqual(Array.from({ length: 5_000 }, (_, item) => item));
  });
});

// A query is a promise. Unpatched, it held its settling functions in closures of its own, leading
// back to itself, and V8's young collections kept every such promise and what it settled with (the
// rows, the statement's text) until a full collection: each statement's garbage was copied and
// promoted, and the old generation filled up with it
// (docs/performance.md#what-the-young-collections-kept-2026-12-05-later).
describe("the Postgres driver's queries", () => {
  const rows = () => Array.from({ length: 50 }, (_, index) => ({ id: index, name: `row ${index}` }));
  const answerLater = (query: { resolve: Settle }) => setImmediate(() => query.resolve(rows()));

  it("leave nothing for the young collections to keep once they are answered", async () => {
    collectFully();
    const before = oldSpaceUsed();
    for (let query = 0; query < 2_000; query += 1) {
      await new Query([""], [], answerLater, null, {});
      if (query % 10 === 9) collect({ type: "minor" });
    }
    const promoted = oldSpaceUsed() - before;
    // Unpatched, every answer was promoted: 3 to 9 MB here, 1.6 KB of rows a query and more.
    expect(promoted).toBeLessThan(500_000);
  });

  it("settle as before: answered or refused, and no longer active", async () => {
    const answered = new Query([""], [], answerLater, null, {});
    answered.active = true;
    expect(await answered).toHaveLength(50);
    expect(answered.active).toBe(false);

    const refused = new Query(
      [""],
      [],
      (query) => setImmediate(() => query.reject(new Error("refused"))),
      null,
      {},
    );
    refused.active = true;
    await expect(refused).rejects.toThrow("refused");
    expect(refused.active).toBe(false);
  });
});
