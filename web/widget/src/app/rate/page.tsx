// Where the rating links of the "How did we do?" email lead: /rate?w=<workspaceId>&t=<token>&r=<1..5>.
// Rendered per request (connection()) so the API address comes from this server's environment
// at run time, not from the build. Never indexed, and the link (its token) is never sent on as
// a referrer.
import type { Metadata } from "next";
import { connection } from "next/server";
import { runtimeConfig } from "@/lib/config";
import { RateLink } from "./RateLink";
import styles from "./rate.module.css";

export const metadata: Metadata = {
  title: "Rate our help",
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

export default async function RatePage() {
  await connection();
  const { apiUrl } = runtimeConfig();
  return (
    <main className={styles.page}>
      <RateLink apiUrl={apiUrl} />
    </main>
  );
}
