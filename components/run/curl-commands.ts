/** One request a person can copy from the run page, with what it does in a sentence. */
export interface CurlCommand {
  id: "rerun" | "approve" | "deny" | "report";
  /** What the copy button says after "Copy:". */
  label: string;
  /** What running it does, said plainly (a re-run is a new run; this one is left as it is). */
  effect: string;
  command: string;
}

const AUTH = `-H "Authorization: Bearer $PLAYGROUND_TOKEN"`;
const JSON_BODY = `-H 'content-type: application/json'`;

/**
 * The HTTP API requests for a run, as curl commands: start a new run from
 * this one's scenario, decide the turn it waits at (only while it waits: the
 * decision is bound to that turn's digest), and read its report. Each names
 * the token variable; the token itself never leaves the person's shell.
 */
export function buildCurlCommands({
  origin,
  runId,
  turnDigest,
}: {
  origin: string;
  runId: string;
  /** The digest of the turn the run waits at, when it waits. */
  turnDigest: string | null;
}): CurlCommand[] {
  const run = `${origin}/api/runs/${runId}`;
  const decide = (body: Record<string, unknown>) =>
    `curl -s ${AUTH} ${JSON_BODY} -d '${JSON.stringify(body).replaceAll("'", "'\\''")}' "${run}/decision"`;
  return [
    {
      id: "rerun",
      label: "run it again",
      effect:
        "Starts a new run from this run's scenario (GET …/scenario piped to POST /api/runs); this run stays as it is.",
      command: `curl -s ${AUTH} "${run}/scenario" | curl -s ${AUTH} ${JSON_BODY} --data-binary @- "${origin}/api/runs"`,
    },
    ...(turnDigest
      ? [
          {
            id: "approve" as const,
            label: "approve this turn",
            effect:
              "Approves the turn this run waits at now (the digest binds it to that turn, nothing later).",
            command: decide({ approve: true, turnDigest }),
          },
          {
            id: "deny" as const,
            label: "deny with a reply",
            effect: "Denies the same turn and sends the model your reply; edit the reason first.",
            command: decide({ approve: false, turnDigest, reason: "why not, or what to do instead" }),
          },
        ]
      : []),
    {
      id: "report",
      label: "the report",
      effect: "Prints the run's report as JSON: its steps, calls, decisions and outcome.",
      command: `curl -s ${AUTH} "${run}/report"`,
    },
  ];
}
