import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRefusalsBeforeNext } from "./refused-before-next";

// Next answers a path it cannot decode, or a method nothing takes, with a bare text 500; the
// production server answers them first.
let server: Server;
let base: string;
const build = mkdtempSync(path.join(tmpdir(), "tp-build-"));

beforeAll(async () => {
  // The headers next.config.mjs gives, as a build's routes-manifest.json holds them.
  writeFileSync(
    path.join(build, "routes-manifest.json"),
    JSON.stringify({
      headers: [
        { regex: "^(?:/(.*))?$", headers: [{ key: "X-Content-Type-Options", value: "nosniff" }] },
        {
          regex: "^/api(?:/(.*))?$",
          headers: [{ key: "Content-Security-Policy", value: "default-src 'none'" }],
        },
      ],
    }),
  );
  const refuse = loadRefusalsBeforeNext(build);
  server = createServer((incoming, outgoing) => {
    if (refuse(incoming, outgoing)) return;
    outgoing.writeHead(200).end("handed on");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(build, { recursive: true, force: true });
});

/** A request of `rawPath` exactly as written (fetch would normalise it), by `method`. */
function fetchRaw(
  rawPath: string,
  method = "GET",
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    request(`${base}${rawPath}`, { method }, (response) => {
      let body = "";
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    })
      .on("error", reject)
      .end();
  });
}

describe("a path that is not percent-encoded UTF-8", () => {
  it.each([
    "/api/runs/%FF",
    "/api/runs/%FF/report",
    "/runs/%FF",
    "/decision-links/%ED%A0%80",
    "/api/users/%E2%9C",
  ])("%s is a 400 with the one error body and the path's headers", async (rawPath) => {
    const answer = await fetchRaw(rawPath);
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "invalid_request", message: expect.stringContaining("percent-encoded UTF-8") },
      pending: null,
    });
  });

  it("gets an API path's own headers there", async () => {
    expect((await fetchRaw("/api/runs/%FF")).headers["content-security-policy"]).toBe("default-src 'none'");
    expect((await fetchRaw("/runs/%FF")).headers["content-security-policy"]).toBeUndefined();
  });

  it.each(["/api/runs/%E2%9C%93", "/runs/a%2Fb", "/api/runs?q=%FF", "/"])(
    "%s is handed on",
    async (rawPath) => {
      expect(await fetchRaw(rawPath)).toMatchObject({ status: 200, body: "handed on" });
    },
  );
});

describe("a method no page or route takes", () => {
  it.each(["TRACE", "PROPFIND", "MKCOL"])(
    "%s is a 405 naming the methods there are, with the one error body",
    async (method) => {
      const answer = await fetchRaw("/api/runs", method);
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(JSON.parse(answer.body)).toEqual({
        error: {
          code: "method_not_allowed",
          message: expect.stringContaining(`The method "${method}" is not one`),
        },
        pending: null,
      });
    },
  );

  it.each(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])("%s is handed on", async (method) => {
    expect(await fetchRaw("/api/runs", method)).toMatchObject({ status: 200 });
  });
});

describe("a Next-Action header naming no server action of this build", () => {
  const known = "7f0123456789abcdef0123456789abcdef01234567";
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  let actionServer: Server;
  let actionBase: string;
  const actionBuild = mkdtempSync(path.join(tmpdir(), "tp-build-"));

  beforeAll(async () => {
    writeFileSync(
      path.join(actionBuild, "routes-manifest.json"),
      JSON.stringify({
        headers: [{ regex: "^(?:/(.*))?$", headers: [{ key: "X-Frame-Options", value: "DENY" }] }],
      }),
    );
    mkdirSync(path.join(actionBuild, "server"));
    writeFileSync(
      path.join(actionBuild, "server", "server-reference-manifest.json"),
      JSON.stringify({ node: { [known]: { workers: {}, layer: {} } }, edge: {}, encryptionKey: "k" }),
    );
    const refuse = loadRefusalsBeforeNext(actionBuild, (fields, message) =>
      warnings.push({ fields, message }),
    );
    actionServer = createServer((incoming, outgoing) => {
      if (refuse(incoming, outgoing)) return;
      outgoing.writeHead(200).end("handed on");
    });
    await new Promise<void>((resolve) => actionServer.listen(0, "127.0.0.1", resolve));
    actionBase = `http://127.0.0.1:${(actionServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => actionServer.close(resolve));
    rmSync(actionBuild, { recursive: true, force: true });
  });

  const post = (actionId: string, method = "POST") =>
    fetch(`${actionBase}/`, { method, headers: { "next-action": actionId } });

  it("is answered before Next, with one warning line and no stack, and the header Next's router reads", async () => {
    warnings.length = 0;
    const bogus = await post("deadbeef");
    expect(bogus.status).toBe(400);
    expect(bogus.headers.get("x-nextjs-action-not-found")).toBe("1");
    expect(bogus.headers.get("x-frame-options")).toBe("DENY");
    expect(await bogus.json()).toEqual({
      error: {
        code: "invalid_request",
        message: 'The Next-Action header "deadbeef" is not a server action id (42 hexadecimal characters).',
      },
      pending: null,
    });
    // An id of the right shape from another build: what Next says of it, as a 404.
    const stale = await post("40".repeat(21));
    expect(stale.status).toBe(404);
    expect(stale.headers.get("x-nextjs-action-not-found")).toBe("1");
    expect((await stale.json()).error).toMatchObject({
      code: "not_found",
      message: expect.stringContaining("reload"),
    });
    expect(warnings).toEqual([
      {
        fields: { requestId: expect.any(String), status: 400, path: "/", action: '"deadbeef"' },
        message: "refused a server action request naming no server action of this build",
      },
      expect.objectContaining({ fields: expect.objectContaining({ status: 404 }) }),
    ]);
    expect(JSON.stringify(warnings)).not.toContain("    at ");
  });

  it("cuts and escapes what the client sent before logging it", async () => {
    warnings.length = 0;
    await post(`x${"y".repeat(500)}`);
    expect(warnings[0]?.fields.action).toBe(JSON.stringify(`x${"y".repeat(63)}…`));
  });

  it("hands on an action the build has, and a Next-Action header on anything but a POST", async () => {
    expect(await (await post(known)).text()).toBe("handed on");
    expect(await (await post("deadbeef", "GET")).text()).toBe("handed on");
  });

  it("hands every action to Next when the build's manifest of actions cannot be read", async () => {
    const refuse = loadRefusalsBeforeNext(build); // the other build has none
    const outgoing = { writeHead: () => outgoing, end: () => outgoing, setHeader: () => {} };
    const incoming = { method: "POST", url: "/", headers: { "next-action": "deadbeef" } };
    expect(refuse(incoming as never, outgoing as never)).toBe(false);
  });
});
