"use client";

// Which channel a conversation came by, in words (never an icon alone): "Email" as a badge with
// an envelope, so email conversations stand out in the inbox and the conversation's header;
// chat and manual conversations as plain text.

import type { Conversation } from "@/api/types";
import { channelLabel } from "@/lib/email";

export function ChannelMarker({ channel }: { channel: Conversation["channel"] }) {
  const label = channelLabel(channel);
  if (channel !== "email") {
    return (
      <span className="channel" data-channel={channel}>
        <span className="visually-hidden">Channel: </span>
        {label}
      </span>
    );
  }
  return (
    <span className="badge badge-channel channel" data-channel="email" title="Email conversation">
      <svg className="channel-icon" viewBox="0 0 24 24" width="12" height="12" aria-hidden="true" focusable="false">
        <path fill="currentColor" d="M3 5h18a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1zm1 2.4V17h16V7.4l-8 5.2-8-5.2zM5.3 7 12 11.3 18.7 7H5.3z" />
      </svg>
      <span className="visually-hidden">Channel: </span>
      {label}
    </span>
  );
}
