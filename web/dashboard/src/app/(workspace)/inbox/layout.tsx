import type { Metadata } from "next";
import type { ReactNode } from "react";
import { InboxFrame } from "./InboxFrame";

export const metadata: Metadata = { title: "Inbox" };

/** The list stays mounted (and live) while conversations open beside it. */
export default function InboxLayout({ children }: { children: ReactNode }) {
  return <InboxFrame>{children}</InboxFrame>;
}
