import type { Metadata } from "next";
import { InboxPage } from "@/components/inbox/inbox-page";
import { getRunService } from "@/lib/server/get-run-service";

export const metadata: Metadata = { title: "Inbox · Tool Playground" };
// The inbox is live data: never prerendered at build time.
export const dynamic = "force-dynamic";

export default async function InboxRoute() {
  const firstPage = await (await getRunService()).listInbox();
  return <InboxPage initialPage={firstPage} renderedAt={Date.now()} />;
}
