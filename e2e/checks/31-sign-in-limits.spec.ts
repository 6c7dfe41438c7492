import { expect, test } from "@playwright/test";
import { E2E_ADMIN } from "../support/accounts";
import { type ProductionServer, startProductionServer } from "../support/production-server";

// Someone guessing passwords cannot buy more attempts by claiming to be elsewhere: the production
// server limits sign-in by the connection's own address, whatever X-Forwarded-For says, and by account.
test.setTimeout(180_000);

let server: ProductionServer | undefined;
test.afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const octet = () => Math.floor(Math.random() * 250) + 1;

test("sign-in attempts with a different X-Forwarded-For each are limited, and so are guesses at one account", async () => {
  server = await startProductionServer({ freshDatabase: true });
  const { baseURL } = server;
  // Next runs instrumentation.ts (which has the server stamp each request with its socket's address)
  // while it handles its first request, after that request arrived: let a health check be that one.
  expect((await fetch(`${baseURL}/api/health`)).status).toBeLessThan(500);
  const signIn = (email: string, password: string) =>
    fetch(`${baseURL}/api/auth/sign-in/email`, {
      method: "POST",
      headers: {
        origin: baseURL,
        "content-type": "application/json",
        "x-forwarded-for": `198.51.${octet()}.${octet()}`,
      },
      body: JSON.stringify({ email, password }),
    });
  const statuses: number[] = [];
  for (let index = 0; index < 12; index += 1) {
    statuses.push((await signIn(`nobody${index}@e2e.test`, "wrong-password-1")).status);
  }
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
  expect(statuses.slice(10)).toEqual([429, 429]);
  // The admin's account is limited after ten failed guesses too (from this address they are refused already;
  // the per-account limit is covered from many addresses in app/api/auth/sign-in-limits.test.ts).
  expect((await signIn(E2E_ADMIN.email, "wrong-password-1")).status).toBe(429);
});
