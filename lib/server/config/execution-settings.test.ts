import { describe, expect, it } from "vitest";
import { DEFAULT_LEASE_MS, DEFAULT_SWEEP_MS, readExecutionSettings } from "./execution-settings";

describe("execution settings", () => {
  it("defaults to a 30 s lease and a 10 s sweep, and names the instance by host and process", () => {
    const settings = readExecutionSettings({});
    expect(settings).toMatchObject({ leaseMs: DEFAULT_LEASE_MS, sweepMs: DEFAULT_SWEEP_MS });
    expect(settings.instanceId).toMatch(new RegExp(`:${process.pid}$`));
  });

  it("reads both from the environment", () => {
    expect(
      readExecutionSettings({
        PLAYGROUND_LEASE_MS: "1500",
        PLAYGROUND_RECOVERY_SWEEP_MS: "250",
        PLAYGROUND_INSTANCE_ID: "web-1",
      }),
    ).toEqual({ leaseMs: 1500, sweepMs: 250, instanceId: "web-1" });
  });

  it.each([
    ["PLAYGROUND_LEASE_MS", "30s"],
    ["PLAYGROUND_LEASE_MS", "10"],
    ["PLAYGROUND_RECOVERY_SWEEP_MS", "-1"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => readExecutionSettings({ [name]: value })).toThrow(
      new RegExp(`${name} must be a whole number`),
    );
  });
});
