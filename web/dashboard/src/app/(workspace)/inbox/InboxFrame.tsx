"use client";

// The inbox's two panes. On phone-sized screens (CSS, < 768 px) they are two screens: the list
// alone on /inbox, the conversation alone on /inbox/{id}; `data-open` says which is shown.

import { useParams } from "next/navigation";
import { type ReactNode, Suspense } from "react";
import { InboxList } from "./InboxList";

export function InboxFrame({ children }: { children: ReactNode }) {
  const { id } = useParams<{ id?: string }>();
  return (
    <div className="inbox" data-open={id ? "conversation" : "list"}>
      <Suspense fallback={<p role="status">Loading conversations…</p>}>
        <InboxList />
      </Suspense>
      <div className="inbox-detail">{children}</div>
    </div>
  );
}
