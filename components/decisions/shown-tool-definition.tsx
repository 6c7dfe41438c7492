import type { PendingTurn, ShownToolDefinition } from "@/lib/runtime/browser";
import { JsonBlock } from "../ui/json-block";

/**
 * A tool from an MCP server, as the approval is bound to it: where it comes
 * from, its fingerprint, and its description set apart as the server's own
 * (untrusted) words; with `isDetailed`, its schema and annotations too.
 */
export function ShownToolDefinitionNote({
  tool,
  isDetailed = false,
}: {
  tool: ShownToolDefinition;
  isDetailed?: boolean;
}) {
  const { origin } = tool;
  return (
    <section className="shown-tool" aria-label={`Definition of ${tool.name}`}>
      <p className="muted">
        From the MCP server <strong>{origin.server}</strong> ({origin.trust}) · fingerprint{" "}
        <code className="fingerprint" title={tool.fingerprint}>
          {tool.fingerprint.slice(0, 12)}
        </code>
        . The approval holds only while the server defines it this way.
      </p>
      <blockquote className="untrusted-text" aria-label={`${tool.name}: the server's description`}>
        <span className="visually-hidden">The server&rsquo;s own description, untrusted: </span>
        {tool.description || "(no description)"}
      </blockquote>
      {isDetailed && (
        <details>
          <summary>
            Schema and annotations<span className="visually-hidden"> of {tool.name}</span>
          </summary>
          <p className="muted">{origin.basis}.</p>
          <JsonBlock
            value={{ inputSchema: tool.inputSchema, annotations: origin.annotations }}
            label={`schema and annotations of ${tool.name}`}
          />
        </details>
      )}
    </section>
  );
}

/** The definition a pending call's fingerprint binds it to, when its tool is an MCP server's. */
export function shownDefinitionOf(
  pending: Pick<PendingTurn, "tools">,
  call: { name: string; toolFingerprint?: string },
): ShownToolDefinition | undefined {
  if (!call.toolFingerprint) return undefined;
  return pending.tools?.find((tool) => tool.name === call.name && tool.fingerprint === call.toolFingerprint);
}

/**
 * What a pending call is bound to: its tool's definition when it is an MCP
 * server's (nothing for the playground's own tools), or, when the definition
 * it was planned with cannot be shown, a warning saying so.
 */
export function BoundDefinition({
  call,
  shown,
  isDetailed = false,
}: {
  call: { name: string; toolFingerprint?: string };
  shown: ShownToolDefinition | undefined;
  isDetailed?: boolean;
}) {
  if (shown) return <ShownToolDefinitionNote tool={shown} isDetailed={isDetailed} />;
  if (!call.toolFingerprint) return null;
  return (
    <p className="alert">
      The definition of {call.name} this call is bound to (fingerprint{" "}
      <code className="fingerprint">{call.toolFingerprint.slice(0, 12)}</code>) cannot be shown: its server
      now defines the tool differently. Approving would not send it; deny it instead.
    </p>
  );
}
