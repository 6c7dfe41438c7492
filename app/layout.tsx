import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: "Tool Playground",
  description: "Run, watch and approve an LLM agent's tool calls.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <Link href="/" className="brand">
            Tool Playground
          </Link>
        </header>
        <main className="site-main">{children}</main>
      </body>
    </html>
  );
}
