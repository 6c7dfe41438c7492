import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bareHttpRoundTrips } from "./http-floor";

/** This process's children that run the bare server (`node --v8-pool-size=0 -e …`), from /proc. */
function bareServers(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        return parent === process.pid && args.includes("-e") && args.includes("--v8-pool-size=0");
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

describe("the bench's HTTP anchor", () => {
  it("times as many round trips as asked, each a real answer's time", async () => {
    const samples = await bareHttpRoundTrips(25);
    expect(samples).toHaveLength(25);
    for (const sample of samples) {
      expect(Number.isFinite(sample)).toBe(true);
      expect(sample).toBeGreaterThan(0);
    }
  });

  it.runIf(existsSync("/proc/self/stat"))("leaves no server process behind", async () => {
    await bareHttpRoundTrips(5);
    expect(bareServers()).toEqual([]);
  });
});
