import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Tickets } from "./Tickets";

export const metadata: Metadata = { title: "Tickets" };

/** `?open={id}` was the address of a ticket before tickets had their own: it still leads there. */
export default async function TicketsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { open } = await searchParams;
  if (typeof open === "string" && open) redirect(`/tickets/${encodeURIComponent(open)}`);
  return <Tickets />;
}
