import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { ActorField } from "@/components/actor-field";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Tool Playground",
  description: "Run, watch and approve an LLM agent's tool calls.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <header className="site-header">
            <Link href="/" className="brand">
              Tool Playground
            </Link>
            <nav aria-label="Main">
              <Link href="/">Playground</Link>
              <Link href="/inbox">Inbox</Link>
            </nav>
            <ActorField />
          </header>
          <main className="site-main">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
