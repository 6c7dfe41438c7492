import { MutationObserver, QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { queryKeys } from "@/lib/queries/query-options";
import { decideTurnMutationOptions, type SendDecision } from "./decide-turn-mutation";

const RUN_ID = "00000000-0000-4000-8000-000000000001";

describe("a decision from the browser", () => {
  it("is no longer pending once the server answers, while the run's view is still being refetched", async () => {
    const queryClient = new QueryClient();
    // The run page watches its view; the refetch a decision asks for never answers here.
    let refetches = 0;
    const view = new QueryObserver(queryClient, {
      queryKey: queryKeys.runView(RUN_ID),
      queryFn: () => {
        refetches += 1;
        return refetches === 1 ? Promise.resolve({ lastSeq: 1 }) : new Promise(() => {});
      },
      staleTime: Number.POSITIVE_INFINITY,
    });
    const unsubscribe = view.subscribe(() => {});
    await queryClient.fetchQuery({ queryKey: queryKeys.runView(RUN_ID) });

    const sent: unknown[] = [];
    const send: SendDecision = async (input) => {
      sent.push(input);
      return { ok: true, data: { status: "applied" } as never };
    };
    const decided: unknown[] = [];
    const decision = new MutationObserver(
      queryClient,
      decideTurnMutationOptions(queryClient, RUN_ID, send, { onDecided: (input) => decided.push(input) }),
    );
    await decision.mutate({ approve: false, turnDigest: "d", reason: "  not now " });

    expect(decision.getCurrentResult().isPending).toBe(false);
    expect(sent).toEqual([{ runId: RUN_ID, approve: false, turnDigest: "d", reason: "not now" }]);
    expect(decided).toHaveLength(1);
    // The refresh was asked for, and is still on its way.
    expect(refetches).toBe(2);
    expect(queryClient.getQueryState(queryKeys.runView(RUN_ID))?.fetchStatus).toBe("fetching");
    unsubscribe();
    queryClient.clear();
  });
});
