import type { Metadata } from "next";
import { Join } from "./Join";

export const metadata: Metadata = { title: "Join a workspace" };

export default async function JoinPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { token } = await searchParams;
  return <Join linkToken={typeof token === "string" ? token : ""} />;
}
