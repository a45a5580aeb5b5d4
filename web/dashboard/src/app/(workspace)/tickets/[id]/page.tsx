import type { Metadata } from "next";
import { TicketDetail } from "../TicketDetail";

export const metadata: Metadata = { title: "Ticket" };

export default async function TicketPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TicketDetail key={id} ticketId={id} />;
}
