import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import type { Identity } from "@/lib/server/auth/identity";

// The page is drawn as Next draws it after `forbidden()`, for whoever the request turns out to be.
const visitor = vi.hoisted(() => ({ identity: null as Identity | null }));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("@/lib/server/auth/identity", () => ({ readIdentity: async () => visitor.identity }));
vi.mock("@/app/actions/sign-out", () => ({ signOutAction: async () => {} }));
const { default: Forbidden } = await import("./forbidden");

const kim = { userId: "u1", name: "Kim", email: "kim@example.com", sessionId: null };

async function drawFor(identity: Identity | null): Promise<string> {
  visitor.identity = identity;
  return renderToStaticMarkup(await Forbidden());
}

/** An element as React writes it, so that a test states its text plainly (React escapes ' as &#x27;). */
function markupOf(tag: string, text: string, props: Record<string, string> = {}): string {
  return renderToStaticMarkup(createElement(tag, props, text));
}

describe("the 403 page", () => {
  it("tells a viewer refused an operator's page which role they hold, and never that the page is for admins", async () => {
    // A viewer on /insights lands here as much as on /admin: the page cannot tell which, and says neither.
    const page = await drawFor({
      ...kim,
      role: "viewer",
      personRole: "viewer",
      via: "session",
      sessionId: "s1",
    });
    expect(page).toContain(markupOf("h1", "This page needs another role"));
    expect(page).toContain(
      markupOf(
        "p",
        "This page needs a role you do not have: you are signed in as kim@example.com, who is viewer. An administrator can change your role on the Users and tokens page.",
      ),
    );
    expect(page).not.toMatch(/admins only|admin role/i);
    expect(page).toContain(markupOf("a", "Back to the playground", { href: "/" }));
    expect(page).toContain(markupOf("button", "Sign out to sign in as someone else", { type: "submit" }));
  });

  it("tells an agent's token that agents use the agent API, not pages, and offers no page to go back to", async () => {
    const page = await drawFor({ ...kim, role: "agent", personRole: "operator", via: "token" });
    expect(page).toContain(markupOf("h1", "Agents use the agent API"));
    expect(page).toContain(
      markupOf(
        "p",
        "The API token sent is an agent's: agents use the agent API (/api/agent/runs), never the playground's pages. Sign in as a person to see this page.",
      ),
    );
    expect(page).not.toContain('href="/"');
    expect(page).toContain(markupOf("a", "Sign in", { href: "/sign-in" }));
  });

  it("names a person's token as the limit, with the role it acts as and its owner's", async () => {
    const page = await drawFor({ ...kim, role: "viewer", personRole: "admin", via: "token" });
    expect(page).toContain(
      markupOf(
        "p",
        "This page needs a role the API token sent does not have: it acts as viewer for kim@example.com, who is admin.",
      ),
    );
  });

  it("says the visitor is no longer signed in when the session ended before the page was drawn", async () => {
    const page = await drawFor(null);
    expect(page).toContain(
      markupOf("p", "This page needs a role you do not have, and you are no longer signed in."),
    );
    expect(page).toContain(markupOf("a", "Sign in", { href: "/sign-in" }));
  });
});
