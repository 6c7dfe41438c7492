import { describe, expect, it } from "vitest";
import { createScheduler } from "./scheduler";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the scheduler", () => {
  it("runs a task at once and then on its interval, never two runs at once, even when a run is slow", async () => {
    const scheduler = createScheduler(() => {});
    let running = 0;
    let mostAtOnce = 0;
    let runs = 0;
    scheduler.every("slow", 5, async () => {
      running += 1;
      runs += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await sleep(20);
      running -= 1;
    });
    await sleep(120);
    await scheduler.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(mostAtOnce).toBe(1);
  });

  it("logs a failing run and keeps the schedule", async () => {
    const logged: string[] = [];
    const scheduler = createScheduler((message) => logged.push(message));
    let runs = 0;
    scheduler.every("flaky", 5, async () => {
      runs += 1;
      if (runs === 1) throw new Error("database restarting");
    });
    await sleep(60);
    await scheduler.stop();
    expect(runs).toBeGreaterThan(2);
    expect(logged[0]).toContain('"flaky" failed');
  });

  it("stops: waits for the run in progress and starts no other", async () => {
    const scheduler = createScheduler(() => {});
    let runs = 0;
    let finished = false;
    scheduler.every("long", 1, async () => {
      runs += 1;
      await sleep(30);
      finished = true;
    });
    await sleep(5);
    await scheduler.stop();
    expect(finished).toBe(true);
    const after = runs;
    await sleep(20);
    expect(runs).toBe(after);
  });
});
