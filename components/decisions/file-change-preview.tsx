"use client";

import { useQuery } from "@tanstack/react-query";
import { fetchJson } from "@/lib/queries/fetch-json";
import { LineDiff } from "../ui/line-diff";
import { readFileChange } from "./read-file-change";

/**
 * What a gated file write would change, read against the run's workspace as
 * it is now: `write_file` as a line diff of the file (or all new lines for a
 * new file), `delete_file` as the lines it would remove. The gate runs next,
 * so the file as it is now is the file it will change.
 */
export function FileChangePreview({
  runId,
  call,
}: {
  runId: string;
  call: { name: string; arguments: string };
}) {
  const change = readFileChange(call);
  const current = useQuery({
    queryKey: ["runs", runId, "files", change?.path ?? ""],
    queryFn: ({ signal }) =>
      fetchJson<{ path: string; content: string | null }>(
        `/api/runs/${runId}/files?path=${encodeURIComponent(change?.path ?? "")}`,
        signal,
      ),
    enabled: change !== null,
    // The file cannot change while the run waits at this gate.
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (!change) return null;
  if (current.isPending) return <p className="muted">Reading {change.path} to show the change…</p>;
  if (current.isError) {
    return (
      <p className="muted">
        The current {change.path} could not be read ({current.error.message}); the arguments above are what
        will run.
      </p>
    );
  }
  const { path, content } = current.data;
  if (change.content !== undefined) {
    return (
      <LineDiff
        before={content ?? ""}
        after={change.content}
        caption={content === null ? `New file ${path}` : `Changes to ${path}`}
      />
    );
  }
  if (content === null)
    return <p className="muted">{path} does not exist: deleting it would change nothing.</p>;
  return <LineDiff before={content} after="" caption={`${path} would be removed`} />;
}
