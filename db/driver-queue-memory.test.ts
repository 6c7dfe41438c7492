import { createRequire } from "node:module";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";

// postgres.js keeps its pool's connections in queues; the idle one is shifted for every query and
// the connection pushed back after, so it is never empty when shifted. Unpatched, each shift left a
// spent slot behind for good (about 10 bytes a query, for as long as a server lives). Our patch
// (patches/postgres+*.patch, applied by `npm install`) drops the spent slots once they are half.
const require = createRequire(import.meta.url);
const driverFolder = path.dirname(require.resolve("postgres"));
const Queue = require(path.join(driverFolder, "queue.js")) as <T>(initial?: T[]) => {
  push(item: T): T;
  shift(): T | undefined;
  readonly length: number;
};

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

function heapAfterCollecting(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

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
