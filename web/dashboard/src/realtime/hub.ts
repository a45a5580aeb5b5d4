// The agent's connection to the chat hub: the shared connection loop (@supportdesk/shared/hub:
// WebSockets, the workspace token in the negotiate request's headers, backoff for ever) with
// the agent's events, and no retrying once negotiate refuses the token (401/403), which will
// not change by retrying. The caller keeps the `headers` object and writes each renewed token
// into it; the client reads it on every negotiate.

import { closeReason, connectHub, type Hub, hubRetryDelay, type HubState, refusedStatus } from "@supportdesk/shared/hub";
import { LOGGED_HUB_EVENTS } from "./eventLog";
import type { LoggedHubEvent, PresenceChanged, TypingEvent } from "./events";

export type { HubState };

export interface HubHandlers {
  /** An event reporting a logged change (MessageCreated, ConversationUpdated, TicketCreated, ...). */
  logged(event: LoggedHubEvent): void;
  typing(event: TypingEvent): void;
  presenceChanged(event: PresenceChanged): void;
  state(state: HubState): void;
  /** Connected, the first time or again after a gap: the caller brings its state up to date. */
  connected(again: boolean): void;
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

/** The hub's server -> client events an agent connection listens to, by name. */
export function agentEvents(on: Pick<HubHandlers, "logged" | "typing" | "presenceChanged">): Record<string, (payload: never) => void> {
  const events: Record<string, (payload: never) => void> = {
    Typing: on.typing,
    PresenceChanged: on.presenceChanged,
  };
  for (const name of LOGGED_HUB_EVENTS) {
    events[name] = (payload: LoggedHubEvent["payload"]) => on.logged({ name, payload } as LoggedHubEvent);
  }
  return events;
}

export function connectAgentHub(url: string, headers: Record<string, string>, on: HubHandlers): AgentHub {
  return connectHub({
    url,
    headers,
    events: agentEvents(on),
    retryDelay: agentRetryDelay,
    state: on.state,
    connected: on.connected,
    closed: (error, lastFailure) => on.ended(closeReason(error), refusedStatus(lastFailure)),
  });
}
