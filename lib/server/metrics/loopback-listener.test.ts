import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installProcessTestDatabase } from "@/lib/server/testing/process-test-database";
import { startLoopbackMetrics } from "./loopback-listener";

let uninstall = async () => {};
beforeAll(async () => {
  ({ uninstall } = await installProcessTestDatabase());
});
afterAll(() => uninstall());

describe("the loopback metrics listener", () => {
  it("serves GET /metrics without credentials on 127.0.0.1 only, and nothing else", async () => {
    const server = startLoopbackMetrics(0, () => {});
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
});
