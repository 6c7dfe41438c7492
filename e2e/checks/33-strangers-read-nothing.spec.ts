import { randomUUID } from "node:crypto";
import { type APIRequestContext, expect, request as playwrightRequest, test } from "@playwright/test";
import { listPageRoutes, listServerActions } from "../../lib/server/testing/app-routes";
import { serverActionId } from "../support/production-server";

// A person who never signed in asks for every page the app has (read from app/, so a new page is
// walked too), as a browser would, as the client router would (RSC), and with a made-up cookie or
// token; and calls every server action. What the admin seeded beforehand (a run's name, an argument
// waiting for approval, its digest, a file's content that read_file returned) appears in no answer,
// and every signed-in page answers with the redirect to sign-in.

/** Pages a stranger may open: they show no run data (docs/security.md). */
const PUBLIC_PAGES = ["/setup", "/sign-in"];
/** Actions a stranger may call: creating the first administrator (refused once one exists) and signing out. */
const PUBLIC_ACTIONS = ["createFirstAdminAction", "signOutAction"];

const tag = randomUUID().slice(0, 8);
const MARKERS = {
  name: `stranger-marker-name-${tag}`,
  argument: `stranger-marker-argument-${tag}`,
  fileContent: `stranger-marker-file-${tag}`,
};

async function readReport(api: APIRequestContext, runId: string) {
  return (await (await api.get(`/api/runs/${runId}`)).json()) as {
    status: string;
    pending: { turnDigest: string } | null;
  };
}

/** A finished run that read a file (its result is the file's content), and a run waiting on a gated write. */
async function seedRuns(api: APIRequestContext) {
  const read = await api.post("/api/runs", {
    data: {
      name: `${MARKERS.name} read`,
      workspace: { "notes.txt": MARKERS.fileContent },
      model: {
        kind: "scripted",
        turns: [
          { calls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
          { calls: [{ name: "finish", arguments: { summary: "read" } }] },
        ],
      },
    },
  });
  expect(read.status()).toBe(201);
  const readRunId = ((await read.json()) as { runId: string }).runId;
  const waiting = await api.post("/api/runs", {
    data: {
      name: `${MARKERS.name} waiting`,
      model: {
        kind: "scripted",
        turns: [
          { calls: [{ name: "write_file", arguments: { path: "out.txt", content: MARKERS.argument } }] },
          { calls: [{ name: "finish", arguments: { summary: "wrote" } }] },
        ],
      },
    },
  });
  expect(waiting.status()).toBe(201);
  const waitingRunId = ((await waiting.json()) as { runId: string }).runId;
  await expect.poll(async () => (await readReport(api, readRunId)).status).toBe("COMPLETED");
  await expect.poll(async () => (await readReport(api, waitingRunId)).status).toBe("WAITING_FOR_APPROVAL");
  const digest = (await readReport(api, waitingRunId)).pending?.turnDigest ?? "";
  expect(digest).toMatch(/^[0-9a-f]{64}$/);
  // The seeded data is really there for someone signed in: otherwise its absence below proves nothing.
  const view = await (await api.get(`/api/runs/${readRunId}/view`)).text();
  expect(view).toContain(MARKERS.fileContent);
  return { readRunId, waitingRunId, digest };
}

/**
 * One page request, redirects not followed, except the one Next answers an RSC request without its
 * cache-busting `_rsc` parameter with (to the same page with it): the client router sends it.
 */
async function requestPage(api: APIRequestContext, url: string, headers: Record<string, string>) {
  let response = await api.get(url, { headers, maxRedirects: 0 });
  const first = response.headers().location ?? "";
  if (headers.rsc && /[?&]_rsc/.test(first) && first.split("?")[0] === url.split("?")[0]) {
    response = await api.get(first, { headers, maxRedirects: 0 });
  }
  return {
    status: response.status(),
    location: response.headers().location ?? "",
    body: await response.text(),
  };
}

function findMarkers(body: string, markers: string[]): string[] {
  return markers.filter((marker) => body.includes(marker));
}

test("a stranger gets the redirect to sign-in from every page, with no run data in it", async ({
  request,
  baseURL,
}) => {
  const { readRunId, waitingRunId, digest } = await seedRuns(request);
  const markers = [...Object.values(MARKERS), digest];
  const stranger = await playwrightRequest.newContext({
    baseURL,
    storageState: { cookies: [], origins: [] },
  });

  const patterns = listPageRoutes();
  // The walk found the pages this test was written against (and whatever came since).
  expect(patterns).toEqual(
    expect.arrayContaining(["/", "/inbox", "/runs", "/runs/[id]", "/compare", "/audit"]),
  );
  const urls = patterns.flatMap((pattern) => {
    const paths = pattern.includes("[")
      ? [readRunId, waitingRunId].map((id) => pattern.replace(/\[[^\]]+\]/g, id))
      : [pattern];
    // Every query a page reads: a run to replay, two to compare, a search for the seeded name.
    const query = `?from=${readRunId}&runs=${readRunId},${waitingRunId}&q=${encodeURIComponent(MARKERS.name.slice(0, 20))}`;
    return paths.flatMap((pathname) => [pathname, `${pathname}${query}`]);
  });
  const variants: Record<string, Record<string, string>> = {
    browser: { accept: "text/html" },
    "client router (RSC)": { rsc: "1" },
    "client router prefetch": { rsc: "1", "next-router-prefetch": "1" },
    "made-up session cookie": { accept: "text/html", cookie: "better-auth.session_token=forged.forged" },
    "made-up API token": { accept: "text/html", authorization: "Bearer tp_forged" },
  };
  const leaks: string[] = [];
  const notRedirected: string[] = [];
  for (const url of urls) {
    const pathname = url.split("?")[0] ?? url;
    for (const [variant, headers] of Object.entries(variants)) {
      const { status, location, body } = await requestPage(stranger, url, headers);
      const found = findMarkers(body, markers);
      if (found.length > 0) leaks.push(`${variant} ${url} (${status}): ${found.join(", ")}`);
      // A prefetch of a dynamic page renders none of it (nothing to redirect): it only must not leak.
      if (PUBLIC_PAGES.includes(pathname) || headers["next-router-prefetch"]) continue;
      // A document request gets the HTTP redirect; the client router gets it inside the RSC payload.
      const isRedirected = headers.rsc
        ? status === 200 && body.includes("NEXT_REDIRECT;replace;/sign-in;307;")
        : status === 307 && location.startsWith("/sign-in");
      if (!isRedirected) {
        notRedirected.push(`${variant} ${url}: ${status} ${location}`);
      }
      // With no credentials at all, the redirect comes before anything is rendered: the body holds
      // nothing but where to go (Next writes the Location there too).
      if (variant === "browser" && body !== "" && body !== location) {
        notRedirected.push(`${variant} ${url}: a page's body with the redirect`);
      }
    }
  }
  expect(leaks).toEqual([]);
  expect(notRedirected).toEqual([]);
  await stranger.dispose();
});

test("a stranger's server action calls are refused before they read or change anything", async ({
  request,
  baseURL,
}) => {
  const { readRunId, waitingRunId, digest } = await seedRuns(request);
  const markers = [...Object.values(MARKERS), digest];
  const stranger = await playwrightRequest.newContext({
    baseURL,
    storageState: { cookies: [], origins: [] },
  });
  const actions = listServerActions();
  expect(actions.map((action) => action.name)).toEqual(
    expect.arrayContaining(["decideTurnAction", "startRunAction", "createTokenAction"]),
  );
  // Whatever each action takes: the seeded runs, the waiting turn's digest, a new account's details.
  const input = {
    runId: waitingRunId,
    turnDigest: digest,
    approve: true,
    scope: "run",
    toolName: "write_file",
    scenarioText: JSON.stringify({ name: "stranger's run", model: { kind: "scripted", turns: [] } }),
    name: "stranger",
    email: "stranger@e2e.test",
    password: "stranger-password",
    role: "admin",
  };
  const problems: string[] = [];
  for (const action of actions) {
    // Posted to a page, as a browser does (the page is the one the action's answer would re-render).
    for (const page of ["/inbox", `/runs/${readRunId}`]) {
      const response = await stranger.post(page, {
        headers: {
          "next-action": serverActionId(action.name),
          "content-type": "text/plain;charset=UTF-8",
          accept: "text/x-component",
          origin: baseURL ?? "",
        },
        data: JSON.stringify([input]),
        maxRedirects: 0,
      });
      const body = await response.text();
      const found = findMarkers(body, markers);
      if (found.length > 0) problems.push(`${action.name} on ${page} sent ${found.join(", ")}`);
      if (!PUBLIC_ACTIONS.includes(action.name) && !body.includes('"code":"unauthenticated"')) {
        problems.push(`${action.name} on ${page} was not refused as unauthenticated: ${body.slice(0, 300)}`);
      }
    }
  }
  expect(problems).toEqual([]);
  // Nothing changed: the turn still waits on the same digest, and no account was made.
  expect(await readReport(request, waitingRunId)).toMatchObject({
    status: "WAITING_FOR_APPROVAL",
    pending: { turnDigest: digest },
  });
  expect(await (await request.get("/api/users")).text()).not.toContain("stranger@e2e.test");
  await stranger.dispose();
});
