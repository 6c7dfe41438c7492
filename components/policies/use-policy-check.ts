"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { postJson } from "@/lib/queries/fetch-json";
import type { PolicyProblem } from "@/lib/runtime";

/** How long typing pauses before the document is checked: one request per pause, not per key. */
const CHECK_AFTER_MS = 300;

export interface PolicyCheckAnswer {
  ok: boolean;
  problems: PolicyProblem[];
}

/**
 * The publish checker's answer for `document` as it is typed (POST /api/policies/check, the same
 * checkPolicy publish runs, on the server: the checker's CEL and YAML code stays out of the page's
 * bundle). The previous answer is kept while the next is asked.
 */
export function usePolicyCheck(document: string) {
  const [settled, setSettled] = useState(document);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(document), CHECK_AFTER_MS);
    return () => clearTimeout(timer);
  }, [document]);
  const query = useQuery({
    queryKey: ["policy-check", settled],
    queryFn: ({ signal }) =>
      postJson<PolicyCheckAnswer>("/api/policies/check", { document: settled }, signal),
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return { ...query, isCurrent: settled === document && !query.isPlaceholderData && !query.isFetching };
}
