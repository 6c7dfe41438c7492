import { beforeAll, describe, expect, it } from "vitest";
import { readApprovals } from "@/db/repositories/approval-audit";
import { gatedWriteScenario } from "@/lib/server/testing/gated-write-scenario";
import { setUpRouteTests } from "@/lib/server/testing/route-tests";

let routes: {
  runs: typeof import("../runs/route");
  run: typeof import("../runs/[id]/route");
  policies: typeof import("./route");
  backtest: typeof import("./backtest/route");
  disagreements: typeof import("./disagreements/route");
  decision: typeof import("../runs/[id]/decision/route");
  check: typeof import("./check/route");
};

const setup = setUpRouteTests();

beforeAll(async () => {
  routes = {
    runs: await import("../runs/route"),
    run: await import("../runs/[id]/route"),
    policies: await import("./route"),
    backtest: await import("./backtest/route"),
    disagreements: await import("./disagreements/route"),
    decision: await import("../runs/[id]/decision/route"),
    check: await import("./check/route"),
  };
});

const { request: as, post } = setup;

/** Starts the gated-write scenario as an operator; answers its run's id and the status it settled in. */
async function startGatedWrite(name: string): Promise<{ runId: string; settled: string }> {
  const created = await routes.runs.POST(post("operator", "http://test/api/runs", gatedWriteScenario(name)));
  const { runId } = (await created.json()) as { runId: string };
  const statusOf = async () =>
    (
      await (
        await routes.run.GET(as("viewer", "http://test"), { params: Promise.resolve({ id: runId }) })
      ).json()
    ).status as string;
  await expect.poll(statusOf, { timeout: 20_000 }).not.toBe("RUNNING");
  return { runId, settled: await statusOf() };
}

const ALLOW_A_TXT = `rules:
  - name: a-txt
    when: call.name == "write_file" && call.arguments.path == "a.txt"
    effect: allow
`;

describe("/api/policies", () => {
  it("only admins publish", async () => {
    const response = await routes.policies.POST(
      post("approver", "http://test/api/policies", { document: ALLOW_A_TXT, mode: "live" }),
    );
    expect(response.status).toBe(403);
  });

  it("refuses a document that does not check, with each problem's line, and stores nothing", async () => {
    const response = await routes.policies.POST(
      post("admin", "http://test/api/policies", {
        document: 'rules:\n  - name: a\n    when: call.tool == "x"\n    effect: allow\n    extra: 1\n',
      }),
    );
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.error.code).toBe("policy_refused");
    expect(body.error.details.problems).toEqual([
      { line: 3, path: "rules[0].when", message: "does not compile: No such key: tool" },
      {
        line: 5,
        path: "rules[0].extra",
        message: "is not a known field (known: name, when, effect, message, approvers, quorum)",
      },
    ]);
    expect(await (await routes.policies.GET(as("admin", "http://test/api/policies"))).json()).toEqual([]);
  });

  it("a shadow version records without deciding; a live one decides and its version is in the audit row", async () => {
    const shadow = await routes.policies.POST(
      post("admin", "http://test/api/policies", { document: ALLOW_A_TXT, mode: "shadow" }),
    );
    expect(shadow.status).toBe(201);
    expect(await shadow.json()).toMatchObject({ version: 1, mode: "shadow" });

    const runUntil = async (status: string) => {
      const { runId, settled } = await startGatedWrite("policy");
      expect(settled).toBe(status);
      return runId;
    };
    // In shadow, the write still waits; the disagreement is listed.
    const shadowed = await runUntil("WAITING_FOR_APPROVAL");
    const disagreements = await (
      await routes.disagreements.GET(as("admin", "http://test/api/policies/disagreements"))
    ).json();
    expect(disagreements).toEqual([
      expect.objectContaining({
        runId: shadowed,
        step: 1,
        batchIndex: 0,
        toolName: "write_file",
        live: "require",
        shadow: "allow",
        shadowVersion: 1,
        shadowRule: "a-txt",
      }),
    ]);

    const live = await routes.policies.POST(
      post("admin", "http://test/api/policies", { document: ALLOW_A_TXT, mode: "live" }),
    );
    expect(await live.json()).toMatchObject({ version: 2, mode: "live" });
    const decided = await runUntil("COMPLETED");
    const audit = await readApprovals(setup.handle.db, decided);
    expect(audit).toEqual([
      expect.objectContaining({
        kind: "automatic",
        toolName: "write_file",
        policyVersion: 2,
        policyRule: "a-txt",
      }),
    ]);

    // The backtest of a candidate that denies the write: over both runs, exactly those calls.
    const backtest = await routes.backtest.POST(
      post("admin", "http://test/api/policies/backtest", {
        document:
          'rules:\n  - name: no-writes\n    when: call.name == "write_file"\n    effect: deny\n    message: no\n',
        since: new Date(Date.now() - 60 * 60 * 1000).toISOString(),
      }),
    );
    const result = await backtest.json();
    expect(result.totals).toMatchObject({ denied: 2, approvalsNoLongerAsked: 0 });

    // Only one run, only one tool: exactly that run's write, and the workload it asked that day.
    const narrowed = async (filter: Record<string, unknown>) =>
      (
        await routes.backtest.POST(
          post("admin", "http://test/api/policies/backtest", {
            document:
              'rules:\n  - name: two\n    when: call.name == "write_file"\n    effect: require\n    quorum: 2\n',
            since: new Date(Date.now() - 60 * 60 * 1000).toISOString(),
            ...filter,
          }),
        )
      ).json();
    const oneRun = await narrowed({ runIds: [shadowed], tool: "write_file" });
    expect(oneRun.rows.map((row: { runId: string; toolName: string }) => [row.runId, row.toolName])).toEqual([
      [shadowed, "write_file"],
    ]);
    expect(oneRun.totals).toMatchObject({ calls: 1, waitsNeedingSecondApprover: 1, differences: 0 });
    expect(oneRun.workload).toEqual([{ day: new Date().toISOString().slice(0, 10), before: 1, after: 2 }]);
    const reads = await narrowed({ tool: "read_file" });
    expect(reads.rows.length).toBeGreaterThan(0);
    expect(new Set(reads.rows.map((row: { toolName: string }) => row.toolName))).toEqual(
      new Set(["read_file"]),
    );
  });
});

describe("a time range the database cannot hold", () => {
  it("is a 400 naming `since`, in the disagreements and the backtest alike, never a failed query", async () => {
    for (const since of [
      "0000-01-01T00:00:00Z",
      "10000-01-01T00:00:00Z",
      "9999-12-31T23:00:00-14:00",
      "-099999-01-01T00:00:00Z",
      "2026-02-30T00:00:00Z",
      "garbage",
    ]) {
      const listed = await routes.disagreements.GET(
        as("admin", `http://test/api/policies/disagreements?since=${encodeURIComponent(since)}`),
      );
      expect(listed.status, since).toBe(400);
      expect((await listed.json()).error.issues, since).toEqual([expect.objectContaining({ path: "since" })]);
      const replayed = await routes.backtest.POST(
        post("admin", "http://test/api/policies/backtest", { document: ALLOW_A_TXT, since }),
      );
      expect(replayed.status, since).toBe(400);
      expect((await replayed.json()).error.issues, since).toEqual([
        expect.objectContaining({ path: "since" }),
      ]);
    }
    // The first day the database holds is a fine start, as an instant or a day.
    for (const since of ["0001-01-01T00:00:00Z", "0001-01-01", "2026-02-28"]) {
      const listed = await routes.disagreements.GET(
        as("admin", `http://test/api/policies/disagreements?since=${since}`),
      );
      expect(listed.status, since).toBe(200);
    }
    const dayZero = await routes.disagreements.GET(
      as("admin", "http://test/api/policies/disagreements?since=0000-01-01"),
    );
    expect(dayZero.status).toBe(400);
  });
});

describe("a backtest's range", () => {
  const backtest = async (range: Record<string, unknown>) =>
    routes.backtest.POST(
      post("admin", "http://test/api/policies/backtest", { document: ALLOW_A_TXT, ...range }),
    );

  it("takes days as the disagreements do, a day `until` through the end of that day (UTC)", async () => {
    const { runId } = await startGatedWrite("days");
    const today = new Date().toISOString().slice(0, 10);
    const rowsOf = async (range: Record<string, unknown>) => {
      const response = await backtest({ ...range, runIds: [runId] });
      expect(response.status, JSON.stringify(range)).toBe(200);
      return (await response.json()).rows.length;
    };
    expect(await rowsOf({ since: today, until: today })).toBeGreaterThan(0);
    expect(await rowsOf({ since: today })).toBeGreaterThan(0);
    // The same day as an instant is its first moment, before the run was recorded.
    expect(await rowsOf({ since: today, until: `${today}T00:00:00Z` })).toBe(0);
  });

  it("refuses a since later than until with a 400 naming both, instead of an empty answer", async () => {
    for (const [since, until] of [
      ["2026-12-02", "2026-12-01"],
      ["2026-12-01T10:00:00Z", "2026-12-01T09:00:00Z"],
      ["2026-12-02T00:00:00Z", "2026-12-01"],
      ["2026-12-01T00:00:00.001Z", "2026-12-01T00:00:00Z"],
    ]) {
      const refused = await backtest({ since, until });
      expect(refused.status, `${since}..${until}`).toBe(400);
      expect((await refused.json()).error).toMatchObject({
        code: "invalid_request",
        message: `Invalid request: since: must not be later than until (since is ${since}, until ${until})`,
      });
    }
    // Within a day `until`, and an empty range of one instant, are not backwards.
    for (const [since, until] of [
      ["2026-12-01T23:59:59Z", "2026-12-01"],
      ["2026-12-01", "2026-12-01"],
      ["2026-12-01T09:00:00Z", "2026-12-01T09:00:00Z"],
      ["2026-12-01", "9999-12-31"],
    ]) {
      expect((await backtest({ since, until })).status, `${since}..${until}`).toBe(200);
    }
  });

  it("names `until` when it is neither a day nor an instant", async () => {
    const refused = await backtest({ since: "2026-12-01", until: "2026-12-32" });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.issues).toEqual([
      {
        path: "until",
        message:
          "must be an ISO day (2026-12-01) or a date and time with its offset (2026-12-01T09:30:00Z), on the calendar",
      },
    ]);
  });
});

describe("the disagreements' range", () => {
  const list = (query: string) =>
    routes.disagreements.GET(as("admin", `http://test/api/policies/disagreements?${query}`));

  it("takes an `until` as the backtest does: not included as an instant, through the end of the day as a day (UTC)", async () => {
    // Live gates the write, the shadow denies it and the finish: one disagreement in each of the
    // run's two steps, the second planned only once the write is approved.
    for (const [document, mode] of [
      ["rules: []\n", "live"],
      [
        'rules:\n  - name: no-writes\n    when: call.name == "write_file"\n    effect: deny\n    message: no\n  - name: no-finish\n    when: call.name == "finish"\n    effect: deny\n    message: no\n',
        "shadow",
      ],
    ]) {
      expect(
        (await routes.policies.POST(post("admin", "http://test/api/policies", { document, mode }))).status,
      ).toBe(201);
    }
    const { runId, settled } = await startGatedWrite("range");
    expect(settled).toBe("WAITING_FOR_APPROVAL");
    const params = { params: Promise.resolve({ id: runId }) };
    const { pending } = await (await routes.run.GET(as("viewer", "http://test"), params)).json();
    const approved = await routes.decision.POST(
      post("admin", `http://test/api/runs/${runId}/decision`, {
        approve: true,
        turnDigest: pending.turnDigest,
      }),
      params,
    );
    expect(approved.status).toBe(200);
    const listed = async (query: string) => {
      const response = await list(query);
      expect(response.status, query).toBe(200);
      return ((await response.json()) as Array<{ runId: string; toolName: string; plannedAt: string }>)
        .filter((row) => row.runId === runId)
        .map((row) => row.toolName);
    };
    await expect.poll(() => listed(""), { timeout: 20_000 }).toEqual(["write_file", "finish"]);
    const rows = (await (await list("")).json()) as Array<{ runId: string; plannedAt: string }>;
    const [write, finish] = rows.filter((row) => row.runId === runId).map((row) => row.plannedAt);
    if (write === undefined || finish === undefined) throw new Error("both steps are listed");

    // The database leaves the run out until its first step; its log is whole, so the second step,
    // in the same run, is left out by when it was planned.
    expect(await listed(`until=${encodeURIComponent(write)}`)).toEqual([]);
    expect(await listed(`until=${encodeURIComponent(finish)}`)).toEqual(["write_file"]);
    const day = write.slice(0, 10);
    expect(await listed(`since=${day}&until=${day}`)).toEqual(["write_file", "finish"]);
    // The same day as an instant is its first moment, before the run was recorded.
    expect(await listed(`since=${day}&until=${day}T00:00:00Z`)).toEqual([]);
  });

  it("refuses a since later than until with the backtest's 400 naming both, instead of an empty list", async () => {
    for (const [since, until] of [
      ["2026-12-02", "2026-12-01"],
      ["2026-12-01T10:00:00Z", "2026-12-01T09:00:00Z"],
      ["2026-12-02T00:00:00Z", "2026-12-01"],
    ]) {
      const refused = await list(`since=${since}&until=${until}`);
      expect(refused.status, `${since}..${until}`).toBe(400);
      expect((await refused.json()).error).toMatchObject({
        code: "invalid_request",
        message: `Invalid request: since: must not be later than until (since is ${since}, until ${until})`,
      });
    }
    // Without `since`, it is a week ago: an `until` before that is refused too.
    const beforeTheWeek = await list("until=2026-01-01");
    expect(beforeTheWeek.status).toBe(400);
    expect((await beforeTheWeek.json()).error.message).toMatch(
      /^Invalid request: since: must not be later than until \(since is \S+, until 2026-01-01\)$/,
    );
  });

  it("names `until` when it is neither a day nor an instant", async () => {
    for (const until of ["2026-12-32", "garbage", "10000-01-01T00:00:00Z", ""]) {
      const refused = await list(`since=2026-12-01&until=${encodeURIComponent(until)}`);
      expect(refused.status, until).toBe(400);
      expect((await refused.json()).error.issues, until).toEqual([
        expect.objectContaining({ path: "until" }),
      ]);
    }
  });
});

describe("a range starting in the future", () => {
  it("is a 400 naming `since`, in the disagreements and the backtest alike, instead of an empty answer", async () => {
    const tomorrow = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    const inAnHour = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    for (const since of [tomorrow, inAnHour, "9999-12-31"]) {
      const listed = await routes.disagreements.GET(
        as("admin", `http://test/api/policies/disagreements?since=${encodeURIComponent(since)}`),
      );
      const replayed = await routes.backtest.POST(
        post("admin", "http://test/api/policies/backtest", {
          document: ALLOW_A_TXT,
          since,
          until: "9999-12-31",
        }),
      );
      for (const response of [listed, replayed]) {
        expect(response.status, since).toBe(400);
        const { issues } = (await response.json()).error;
        expect(issues, since).toEqual([
          {
            path: "since",
            message: expect.stringMatching(
              new RegExp(
                `^is in the future, where nothing is recorded yet \\(since is ${since}, now \\S+Z\\)$`,
              ),
            ),
          },
        ]);
      }
    }
    // Today, as a day, starts before now.
    const today = new Date().toISOString().slice(0, 10);
    expect(
      (await routes.disagreements.GET(as("admin", `http://test/api/policies/disagreements?since=${today}`)))
        .status,
    ).toBe(200);
  });
});

describe("/api/policies/check", () => {
  it("answers the publish checker's problems, each with its line, and stores nothing", async () => {
    const response = await routes.check.POST(
      post("admin", "http://test/api/policies/check", {
        document: 'rules:\n  - name: a\n    when: call.tool == "x"\n    effect: allow\n',
      }),
    );
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.ok).toBe(false);
    expect(body.problems).toEqual([expect.objectContaining({ line: 3, path: "rules[0].when" })]);
    const fine = await routes.check.POST(
      post("admin", "http://test/api/policies/check", {
        document: "rules:\n  - name: a\n    effect: allow\n",
      }),
    );
    expect(await fine.json()).toEqual({ ok: true, problems: [] });
  });

  it("is for admins only: an approver is refused", async () => {
    const response = await routes.check.POST(
      post("approver", "http://test/api/policies/check", { document: "rules: []\n" }),
    );
    expect(response.status).toBe(403);
  });
});
