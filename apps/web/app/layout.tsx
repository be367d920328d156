import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Tranche",
  description: "Fair, explainable GPU time for research labs",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="topbar">
          <a href="/" className="brand">
            <span className="brand-mark" aria-hidden>▮▮▯</span> Tranche
          </a>
          <nav aria-label="Main">
            <a href="/">Overview</a>
          </nav>
        </header>
        <Providers>
          <main className="page">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
