// Rendered per request (connection()), so the API, hub and widget addresses come from this
// server's environment at run time, not from the build: one image serves every install.
import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { runtimeConfig } from "@/lib/config";
import { KeepSignedIn } from "@/session/KeepSignedIn";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Support Desk", template: "%s · Support Desk" },
  robots: { index: false, follow: false },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <Providers config={runtimeConfig()}>
          <KeepSignedIn />
          {children}
        </Providers>
      </body>
    </html>
  );
}
