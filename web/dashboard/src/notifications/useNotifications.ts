"use client";

// Carries out ./decide inside the workspace shell: listens to live hub events, shows a desktop
// notification and plays the tone as the agent's preferences say, and keeps the unread count
// in the tab title. Mounted once, by the shell.

import { type QueryClient, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { type Api, unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { Conversation, ConversationList, Profile } from "@/api/types";
import { useApi } from "@/app/providers";
import type { ConversationPages } from "@/realtime/reducers";
import { useHub } from "@/realtime/HubProvider";
import { alertFor, type Alert, type ConversationFacts, deliveryFor, type NotifiableEvent, shouldRing, titleWithUnread, unreadTotal } from "./decide";
import type { Permission } from "./permission";
import { playTone } from "./tone";

/** Mine and Unassigned, each the 100 most recently active conversations (unread ones are recent). */
const unreadKey = (ws: string) => ["ws", ws, "notifications", "unread"] as const;
const UNREAD_SCOPE = ["me", "unassigned"] as const;
const REFRESH_DELAY_MS = 800;

function tabVisible(): boolean {
  return typeof document !== "undefined" && document.visibilityState === "visible";
}

/** The conversation as this tab knows it, else as the API says (null if it cannot be read). */
async function conversationFacts(queryClient: QueryClient, api: Api, ws: string, id: string): Promise<ConversationFacts | null> {
  const record = queryClient.getQueryData<Conversation>(keys.conversation(ws, id));
  if (record) return record;
  for (const [, data] of queryClient.getQueriesData<ConversationPages>({ queryKey: keys.conversations(ws) })) {
    const found = data?.pages.flatMap((p) => p.conversations).find((c) => c.id === id);
    if (found) return found;
  }
  try {
    return await unwrap(api.workspace.GET("/api/conversations/{id}", { params: { path: { id } } }));
  } catch {
    return null;
  }
}

function notifiable(event: { name: string; payload: unknown }): event is NotifiableEvent {
  return event.name === "ConversationCreated" || event.name === "MessageCreated";
}

export function useNotifications({
  workspaceId,
  me,
  openConversationId,
  permission,
}: {
  workspaceId: string;
  me: Profile | null;
  openConversationId: string | null;
  permission: Permission;
}): void {
  const api = useApi();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { onLiveEvent } = useHub();

  // The latest of everything the listener reads, without resubscribing on each change.
  const latest = useRef({ me, openConversationId, permission });
  useEffect(() => {
    latest.current = { me, openConversationId, permission };
  }, [me, openConversationId, permission]);
  const lastRang = useRef<number | null>(null);

  const unread = useQuery({
    queryKey: unreadKey(workspaceId),
    queryFn: async (): Promise<ConversationList["conversations"][]> =>
      Promise.all(
        UNREAD_SCOPE.map(async (assignee) => {
          const page = await unwrap(api.workspace.GET("/api/conversations", { params: { query: { assignee, limit: 100 } } }));
          return page.conversations;
        }),
      ),
    // Coming back to the tab after a while: the hub kept it current, but a read elsewhere did not.
    refetchOnWindowFocus: "always",
  });
  // Leaving a conversation: it was read meanwhile (the conversation view tells the API), so the
  // counts are asked again once that has landed.
  const seenConversation = useRef(openConversationId);
  useEffect(() => {
    if (seenConversation.current === openConversationId) return;
    seenConversation.current = openConversationId;
    const refresh = setTimeout(() => void queryClient.invalidateQueries({ queryKey: unreadKey(workspaceId) }), REFRESH_DELAY_MS);
    return () => clearTimeout(refresh);
  }, [openConversationId, queryClient, workspaceId]);

  useEffect(() => {
    let refresh: ReturnType<typeof setTimeout> | null = null;
    const refreshUnread = () => {
      if (refresh) clearTimeout(refresh);
      refresh = setTimeout(() => void queryClient.invalidateQueries({ queryKey: unreadKey(workspaceId) }), REFRESH_DELAY_MS);
    };
    const deliver = (alert: Alert) => {
      const { me: profile, permission: allowed } = latest.current;
      if (!profile) return;
      const how = deliveryFor(alert.kind, profile.notificationPreferences, allowed);
      if (how.sound && shouldRing(lastRang.current, Date.now())) {
        lastRang.current = Date.now();
        playTone();
      }
      if (how.desktop) {
        // One notification per conversation: a newer one replaces it rather than piling up.
        // Some mobile browsers allow notifications only from a service worker and throw here.
        try {
          const shown = new Notification(alert.title, { body: alert.body, tag: `conversation-${alert.conversationId}` });
          shown.onclick = () => {
            window.focus();
            router.push(`/inbox/${alert.conversationId}`);
            shown.close();
          };
        } catch (error) {
          console.warn("This browser refused a desktop notification.", error);
        }
      }
    };
    const unsubscribe = onLiveEvent((event) => {
      // What is unread moves with messages and conversations (not with a customer's rating).
      if (event.name === "MessageCreated" || event.name === "ConversationCreated" || event.name === "ConversationUpdated") refreshUnread();
      if (!notifiable(event)) return;
      const viewer = () => ({
        meId: latest.current.me?.id ?? null,
        myDisplayName: latest.current.me?.displayName ?? null,
        openConversationId: latest.current.openConversationId,
        tabVisible: tabVisible(),
      });
      if (event.name === "ConversationCreated") {
        const alert = alertFor(event, null, viewer());
        if (alert) deliver(alert);
        return;
      }
      // Only an incoming message needs the conversation (whose is it?); a note needs its text.
      const needsFacts = event.payload.message.kind === "incoming" && event.payload.message.authorAgentId == null;
      const facts = needsFacts ? conversationFacts(queryClient, api, workspaceId, event.payload.conversationId) : Promise.resolve(null);
      void facts.then((conversation) => {
        const alert = alertFor(event, conversation, viewer());
        if (alert) deliver(alert);
      });
    });
    return () => {
      if (refresh) clearTimeout(refresh);
      unsubscribe();
    };
  }, [onLiveEvent, queryClient, api, workspaceId, router]);

  // The tab title: Next sets it on every navigation, so it is watched and prefixed again.
  // Only a title Next has put in place is prefixed: assigning `document.title` while the page
  // has no title element (between two navigations' metadata) creates an empty one, which then
  // stays ahead of the title Next inserts.
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    const update = () => setVisible(tabVisible());
    update();
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  const reading = visible ? openConversationId : null;
  const total = unreadTotal(unread.data ?? [], reading);
  useEffect(() => {
    const retitle = (unread: number) => {
      if (!document.head.querySelector("title")?.textContent) return;
      const next = titleWithUnread(document.title, unread);
      if (next !== document.title) document.title = next;
    };
    const apply = () => retitle(total);
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => {
      observer.disconnect();
      retitle(0);
    };
  }, [total]);
}
