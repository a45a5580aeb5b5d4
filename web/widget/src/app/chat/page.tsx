// The chat page the loader frames. Rendered per request (connection()) so the API and hub
// addresses come from this server's environment at run time, not from the build.
import { connection } from "next/server";
import { ChatApp } from "@/chat/ChatApp";
import { runtimeConfig } from "@/lib/config";

export default async function ChatPage() {
  await connection();
  const { apiUrl, hubUrl } = runtimeConfig();
  return <ChatApp apiUrl={apiUrl} hubUrl={hubUrl} />;
}
