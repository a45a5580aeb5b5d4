import type { Metadata } from "next";
import { Tickets } from "./Tickets";

export const metadata: Metadata = { title: "Tickets" };

export default async function TicketsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { open } = await searchParams;
  return <Tickets initialOpen={typeof open === "string" ? open : null} />;
}
