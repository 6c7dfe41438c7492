import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { AccountMenu } from "@/components/auth/account-menu";
import { Providers } from "@/components/providers";
import { readIdentity } from "@/lib/server/auth/identity";
import { hasRole } from "@/lib/wire/roles";
import "./globals.css";

export const metadata: Metadata = {
  title: "Tool Playground",
  description: "Run, watch and approve an LLM agent's tool calls.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const identity = await readIdentity(await headers());
  return (
    <html lang="en">
      <body>
        <Providers>
          <header className="site-header">
            <Link href="/" className="brand">
              Tool Playground
            </Link>
            {identity && (
              <>
                <nav aria-label="Main">
                  <Link href="/">Playground</Link>
                  <Link href="/inbox">Inbox</Link>
                  <Link href="/runs">Runs</Link>
                  <Link href="/audit">Audit</Link>
                  <Link href="/grants">Grants</Link>
                  {hasRole(identity.role, "operator") && <Link href="/insights">Insights</Link>}
                  {hasRole(identity.role, "admin") && <Link href="/policies">Policy</Link>}
                </nav>
                <AccountMenu identity={identity} />
              </>
            )}
          </header>
          <main className="site-main">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
