import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { readMetricsPort, startLoopbackMetrics } from "./loopback-listener";
import { readProcessMetrics } from "./read-metrics";

let uninstall = async () => {};
beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
});
afterAll(() => uninstall());

describe("the loopback metrics listener", () => {
  it("serves GET /metrics without credentials on 127.0.0.1 only, and nothing else", async () => {
    const server = startLoopbackMetrics(0, readProcessMetrics, () => {});
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    try {
      const { address, port } = server.address() as AddressInfo;
      expect(address).toBe("127.0.0.1");
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("# TYPE playground_runs gauge");
      expect((await fetch(`http://127.0.0.1:${port}/api/runs`)).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("reads its port from PLAYGROUND_METRICS_PORT, and refuses, naming it, what is not a port", () => {
    expect(readMetricsPort({})).toBeNull();
    expect(readMetricsPort({ PLAYGROUND_METRICS_PORT: " " })).toBeNull();
    expect(readMetricsPort({ PLAYGROUND_METRICS_PORT: "0" })).toBeNull();
    expect(readMetricsPort({ PLAYGROUND_METRICS_PORT: "9464" })).toBe(9464);
    for (const value of ["metrics", "00", "65536", "94.64", "-1", "0x10"]) {
      expect(() => readMetricsPort({ PLAYGROUND_METRICS_PORT: value })).toThrow(
        `PLAYGROUND_METRICS_PORT must be a port number (1 to 65535), not "${value}".`,
      );
    }
  });
});
