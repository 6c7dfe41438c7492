import type { Metadata } from "next";
import { InboxPage } from "@/components/inbox/inbox-page";
import { requirePageIdentity } from "@/lib/http/require-page-identity";
import { readListQuery } from "@/lib/server/lists/read-list-query";
import { getRunService } from "@/lib/server/server-context";
import { inboxFilterOf, inboxQuerySchema } from "@/lib/wire/list-filters";

export const metadata: Metadata = { title: "Inbox · Tool Playground" };
// The inbox is live data: never prerendered at build time.
export const dynamic = "force-dynamic";

/** The approval inbox; `?q=&tool=&startedBy=&order=oldest` narrow and order it (links keep a filter). */
export default async function InboxRoute({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageIdentity();
  const { query } = readListQuery(inboxQuerySchema, await searchParams);
  const firstPage = await (await getRunService()).listInbox({ filter: inboxFilterOf(query) });
  return (
    <InboxPage
      initialPage={firstPage}
      initialFilter={{
        q: query.q,
        tool: query.tool,
        startedBy: query.startedBy,
        order: query.order,
        archived: query.archived,
      }}
      renderedAt={Date.now()}
    />
  );
}
