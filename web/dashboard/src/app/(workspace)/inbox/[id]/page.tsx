import type { Metadata } from "next";
import { Suspense } from "react";
import { ConversationView } from "./ConversationView";

export const metadata: Metadata = { title: "Conversation" };

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<p role="status">Loading conversation…</p>}>
      <ConversationView key={id} conversationId={id} />
    </Suspense>
  );
}
