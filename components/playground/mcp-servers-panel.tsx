"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { fetchJson } from "@/lib/queries/fetch-json";
import type { ListedMcpServer } from "@/lib/server/mcp/mcp-connections";
import { JsonBlock } from "../ui/json-block";

/**
 * The operator's MCP servers and their tools, listed when opened (listing
 * starts stdio servers): what each server says about a tool, and what the
 * playground makes of it. A description comes from the server and is shown
 * as untrusted text. `only` lists just those servers (a run's own).
 */
export function McpServersPanel({ only }: { only?: readonly string[] } = {}) {
  const [isOpen, setIsOpen] = useState(false);
  const listing = useQuery({
    queryKey: ["mcp", "servers"],
    queryFn: ({ signal }) =>
      fetchJson<{ servers: ListedMcpServer[]; problem: string | null }>("/api/mcp/servers", signal),
    enabled: isOpen,
    staleTime: 30_000,
  });
  return (
    <details className="panel mcp-servers" onToggle={(event) => setIsOpen(event.currentTarget.open)}>
      <summary>{only ? "This run's MCP servers" : "MCP servers"}</summary>
      {listing.isPending && isOpen && <p className="muted">Listing the servers&rsquo; tools…</p>}
      {listing.isError && (
        <p className="alert" role="alert">
          The servers could not be listed: {listing.error.message}
        </p>
      )}
      {listing.data?.problem && (
        <p className="alert" role="alert">
          The MCP configuration cannot be read: {listing.data.problem}
        </p>
      )}
      {listing.data && listing.data.servers.length === 0 && !listing.data.problem && (
        <p className="muted">
          No MCP server is configured. The server&rsquo;s operator adds them with{" "}
          <code>PLAYGROUND_MCP_SERVERS</code>.
        </p>
      )}
      {listing.data?.servers
        .filter((server) => !only || only.includes(server.id))
        .map((server) => (
          <section key={server.id} aria-label={`MCP server ${server.id}`}>
            <h3>
              {server.id}{" "}
              <span className="tag">
                {server.trust} · {server.transport}
              </span>
            </h3>
            {server.problem ? (
              <p className="alert">{server.problem}</p>
            ) : (
              <ul className="mcp-tools">
                {server.tools.map((tool) => (
                  <li key={tool.name}>
                    <code className="call-name">{tool.name}</code>{" "}
                    <span className={`tag${tool.approval === "always" ? " tag-barrier" : ""}`}>
                      {tool.approval === "always" ? "gated" : "no approval"}
                    </span>{" "}
                    <span className="muted">
                      {tool.resourceClass} · {tool.effect}
                    </span>
                    <p className="muted">{tool.basis}.</p>
                    {tool.description && (
                      <blockquote
                        className="untrusted-text"
                        aria-label={`${tool.name}: the server's description`}
                      >
                        <span className="visually-hidden">
                          The server&rsquo;s own description, untrusted:{" "}
                        </span>
                        {tool.description}
                      </blockquote>
                    )}
                    <p className="muted">
                      Fingerprint <code title={tool.fingerprint}>{tool.fingerprint.slice(0, 12)}</code>
                    </p>
                    <details>
                      <summary>
                        Schema and annotations<span className="visually-hidden"> of {tool.name}</span>
                      </summary>
                      <JsonBlock
                        value={{ inputSchema: tool.inputSchema, annotations: tool.annotations }}
                        label={`schema and annotations of ${tool.name}`}
                      />
                    </details>
                  </li>
                ))}
              </ul>
            )}
          </section>
        ))}
    </details>
  );
}
