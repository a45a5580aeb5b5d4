import type { Metadata } from "next";
import { ConversationView } from "./ConversationView";

export const metadata: Metadata = { title: "Conversation" };

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ConversationView key={id} conversationId={id} />;
}
