import type { Metadata } from "next";
import type { ReactNode } from "react";
import { InboxList } from "./InboxList";

export const metadata: Metadata = { title: "Inbox" };

/** The list stays mounted (and live) while conversations open beside it. */
export default function InboxLayout({ children }: { children: ReactNode }) {
  return (
    <div className="inbox">
      <InboxList />
      <div className="inbox-detail">{children}</div>
    </div>
  );
}
