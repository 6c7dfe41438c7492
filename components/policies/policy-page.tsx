"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, fetchJson, postJson } from "@/lib/queries/fetch-json";
import type { ShadowDisagreement, StoredPolicyVersion } from "@/lib/server/policies/policies";
import { Timestamp } from "../ui/timestamp";
import { CallLink, PolicyBacktest } from "./policy-backtest";
import { PolicyEditor } from "./policy-editor";

const STARTER_POLICY = `# First matching rule wins; without a match, the tool's declaration decides.
rules:
  - name: docs-writes
    when: call.name == "write_file" && call.arguments.path.startsWith("docs/")
    effect: allow
`;

const versionsQuery = {
  queryKey: ["policies"],
  queryFn: ({ signal }: { signal: AbortSignal }) => fetchJson<StoredPolicyVersion[]>("/api/policies", signal),
};

/**
 * The approval policy page (docs/policies.md#the-policy-page), admins only: the policy that
 * decides and every version, an editor checked as you type, a backtest over recorded runs,
 * publishing in shadow or live, and where the shadow disagreed with what was done.
 */
export function PolicyPage({ initialVersions }: { initialVersions: StoredPolicyVersion[] }) {
  const queryClient = useQueryClient();
  const versions = useQuery({ ...versionsQuery, initialData: initialVersions });
  const live = versions.data.find((version) => version.mode === "live") ?? null;
  const shadow =
    versions.data.find((version) => version.mode === "shadow" && version.version > (live?.version ?? 0)) ??
    null;
  const [document, setDocument] = useState(live?.document ?? STARTER_POLICY);
  const publish = useMutation({
    mutationFn: (mode: "live" | "shadow") =>
      postJson<StoredPolicyVersion>("/api/policies", { document, mode }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["policies"] }),
  });
  return (
    <div className="policy-page">
      <h1>Approval policy</h1>
      <section className="panel" aria-labelledby="policy-current-heading">
        <h2 id="policy-current-heading">In force</h2>
        <p>
          {live ? (
            <>
              Version {live.version} decides, published by {live.publishedByName}{" "}
              <Timestamp at={live.publishedAt} />.
            </>
          ) : (
            "No policy is live: each tool's declaration decides."
          )}{" "}
          {shadow && <>Version {shadow.version} runs in shadow: it records what it would have done.</>}
        </p>
      </section>
      <section className="panel" aria-labelledby="policy-editor-heading">
        <h2 id="policy-editor-heading">Edit</h2>
        <PolicyEditor document={document} onChange={setDocument} />
        <div className="policy-publish">
          <button type="button" disabled={publish.isPending} onClick={() => publish.mutate("shadow")}>
            Publish in shadow
          </button>
          <button type="button" disabled={publish.isPending} onClick={() => publish.mutate("live")}>
            Publish live
          </button>
        </div>
        <div aria-live="polite">
          {publish.isSuccess && (
            <p className="valid">
              Published version {publish.data.version} ({publish.data.mode}).
            </p>
          )}
        </div>
        {publish.isError && (
          <div className="alert" role="alert">
            <strong>Not published.</strong> {describePublishError(publish.error)}
          </div>
        )}
      </section>
      <PolicyBacktest document={document} />
      <ShadowDisagreements />
      <section className="panel" aria-labelledby="policy-versions-heading">
        <h2 id="policy-versions-heading">Versions</h2>
        {versions.data.length === 0 ? (
          <p className="muted">No version has been published.</p>
        ) : (
          <table className="stack-on-phone" aria-label="Policy versions">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Mode</th>
                <th scope="col">Published by</th>
                <th scope="col">When</th>
                <th scope="col">Document</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.map((version) => (
                <tr key={version.version}>
                  <td data-label="Version">{version.version}</td>
                  <td data-label="Mode">
                    {version.mode}
                    {version === live && <span className="tag">deciding</span>}
                    {version === shadow && <span className="tag">recording</span>}
                  </td>
                  <td data-label="Published by">{version.publishedByName}</td>
                  <td data-label="When">
                    <Timestamp at={version.publishedAt} />
                  </td>
                  <td data-label="Document">
                    <button type="button" onClick={() => setDocument(version.document)}>
                      Edit a copy<span className="visually-hidden"> of version {version.version}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

/** A refused publish names its first problem; the editor's list has them all. */
function describePublishError(error: Error): string {
  if (error instanceof ApiError && error.code === "policy_refused") {
    return "The policy does not check: fix the problems listed under the editor.";
  }
  return error.message;
}

/** Where the shadow version would have done otherwise than what was done, in the last 7 days. */
function ShadowDisagreements() {
  const disagreements = useQuery({
    queryKey: ["policy-disagreements"],
    queryFn: ({ signal }) => fetchJson<ShadowDisagreement[]>("/api/policies/disagreements", signal),
  });
  return (
    <section className="panel" aria-labelledby="policy-disagreements-heading">
      <h2 id="policy-disagreements-heading">Shadow and live disagreed</h2>
      <button type="button" onClick={() => disagreements.refetch()} disabled={disagreements.isFetching}>
        {disagreements.isFetching ? "Looking…" : "Look again"}
      </button>
      {disagreements.isError && (
        <div className="alert" role="alert">
          {disagreements.error.message}
        </div>
      )}
      {disagreements.data &&
        (disagreements.data.length === 0 ? (
          <p className="muted">No disagreement in the last 7 days.</p>
        ) : (
          <ul aria-label="Disagreements" className="call-links">
            {disagreements.data.map((row) => (
              <li key={`${row.runId}:${row.step}:${row.batchIndex}`}>
                <CallLink row={row} /> <code>{row.toolName}</code>: live {row.live}, shadow v
                {row.shadowVersion} {row.shadow}
                {row.shadowRule ? ` by rule ${row.shadowRule}` : " by the declaration"}
              </li>
            ))}
          </ul>
        ))}
    </section>
  );
}
