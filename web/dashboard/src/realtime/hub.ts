// The agent's connection to the chat hub: the shared connection loop (@supportdesk/shared/hub:
// WebSockets, the workspace token in the negotiate request's headers, backoff for ever) with
// the agent's events, and no retrying once negotiate refuses the token (401/403), which will
// not change by retrying. The caller keeps the `headers` object and writes each renewed token
// into it; the client reads it on every negotiate.

import { closeReason, connectHub, type Hub, hubRetryDelay, type HubState, refusedStatus } from "@supportdesk/shared/hub";
import type { ConversationCreated, ConversationUpdated, MessageCreated, PresenceChanged, TypingEvent } from "./events";

export type { HubState };

export interface HubHandlers {
  messageCreated(event: MessageCreated): void;
  conversationCreated(event: ConversationCreated): void;
  conversationUpdated(event: ConversationUpdated): void;
  typing(event: TypingEvent): void;
  presenceChanged(event: PresenceChanged): void;
  state(state: HubState): void;
  /** Connected again after a gap: whatever was missed meanwhile should be refetched. */
  resynced(): void;
  /**
   * The server closed the connection for good (Close with allowReconnect: false: deactivated,
   * role changed, workspace deleted) or refused to let it back in (401/403 on negotiate).
   */
  ended(reason: string | null, status: number | null): void;
}

export type AgentHub = Hub;

/** Reconnect backoff, for ever (capped at 30 s); none after 401/403. */
export function agentRetryDelay(previousRetryCount: number, error: unknown): number | null {
  return refusedStatus(error) !== null ? null : hubRetryDelay(previousRetryCount);
}

export function connectAgentHub(url: string, headers: Record<string, string>, on: HubHandlers): AgentHub {
  return connectHub({
    url,
    headers,
    events: {
      MessageCreated: on.messageCreated,
      ConversationCreated: on.conversationCreated,
      ConversationUpdated: on.conversationUpdated,
      Typing: on.typing,
      PresenceChanged: on.presenceChanged,
    },
    retryDelay: agentRetryDelay,
    state: on.state,
    connected: (again) => {
      if (again) on.resynced();
    },
    closed: (error, lastFailure) => on.ended(closeReason(error), refusedStatus(lastFailure)),
  });
}
