"use client";

// The chat window inside the loader's iframe: branding and greeting, presence ("Agents online"
// or "We reply by email" with an email form), outside business hours an away notice on top with
// that same form, the conversation as a live log, agent typing, connection status, the resolved
// notice with the rating of the resolution, and the message box with its length counter and
// files (an attach button, or an image pasted into the box).
// Behaviour lives in useChat and useFileDrafts; this file only renders.

import { transferFiles } from "@supportdesk/shared/attachments";
import {
  useEffect,
  useRef,
  useState,
  type ClipboardEvent,
  type CSSProperties,
  type FormEvent,
  type KeyboardEvent,
} from "react";
import { VISITOR_MAX_BYTES } from "./api";
import { agentLook } from "./author";
import { lookOf } from "./branding";
import { DraftFiles, MessageFiles } from "./Files";
import { checkLength } from "./limit";
import { ResolutionRating } from "./ResolutionRating";
import { replyTimeText } from "./availability";
import { awayNotice, typicalReply, typingText, type ConnectionStatus } from "./state";
import { secondsLeft } from "./timing";
import type { Message } from "./types";
import { useChat, type Chat } from "./useChat";
import { useFileDrafts } from "./useFileDrafts";

const CONNECTION_TEXT: Record<ConnectionStatus, string> = {
  connecting: "Connecting…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  disconnected: "Disconnected",
};

/** Above the email form when no agent is online. */
const OFFLINE_INTRO =
  "No one is online right now. Leave your email: replies you have not seen here will be emailed to you (at most one email every 10 minutes), with a link back to this chat.";

export function ChatApp({ apiUrl, hubUrl }: { apiUrl: string; hubUrl: string }) {
  const chat = useChat({ apiUrl, hubUrl });
  const { state, close } = chat;
  const scroller = useRef<HTMLDivElement>(null);
  const count = state.messages.length;
  const conversation = state.conversation;
  const resolved = conversation?.status === "resolved";
  /** What shows under the resolved notice: nothing, the rating form, or the rating given. */
  const ratingShown = resolved ? (conversation.rating?.rating ?? conversation.askForRating) : null;

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      // Escape while composing (IME) cancels the composition, not the chat.
      if (event.key === "Escape" && !event.isComposing) close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [close]);

  // Keep the newest message in view (scrollTop, not scrollIntoView, which may scroll the
  // customer's page around the iframe too).
  // The resolved notice, and the rating under it, are the last things in the scroller: they come
  // into view the same way.
  useEffect(() => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [count, resolved, ratingShown]);

  if (!state.session) {
    return (
      <main className="chat">
        <p className="starting">{state.error ? null : "Starting chat…"}</p>
        {state.error && (
          <p role="alert" className="error">
            {state.error}
          </p>
        )}
      </main>
    );
  }

  const look = lookOf(state.session);
  const online = state.agentsOnline;
  const typing = typingText(state.typing);
  const away = awayNotice(state);
  const replyIn = typicalReply(state);
  const brand = { "--brand": look.color, "--brand-text": look.textColor } as CSSProperties;

  return (
    <main className="chat" style={brand}>
      <header className="header">
        {look.logoUrl && (
          // eslint-disable-next-line @next/next/no-img-element -- any host's logo; no optimizer
          <img className="logo" src={look.logoUrl} alt="" width={32} height={32} />
        )}
        <div className="heading">
          <h1>{look.title}</h1>
          <p className="presence">
            <span className={online ? "dot online" : "dot"} aria-hidden="true" />
            {away ? "Away: we reply by email" : online ? "Agents online" : "We reply by email"}
          </p>
        </div>
        <p role="status" className="connection" data-state={state.connection}>
          {CONNECTION_TEXT[state.connection]}
        </p>
        <button type="button" className="minimize" aria-label="Minimize chat" onClick={chat.close}>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path fill="currentColor" d="M19 13H5v-2h14v2z" />
          </svg>
        </button>
      </header>

      {/* Focusable, so that the keyboard scrolls a long conversation with nothing focusable in it. */}
      <div className="body" ref={scroller} tabIndex={0} role="region" aria-label="Conversation">
        {away && <AwayNotice chat={chat} email={away.email} />}
        <p className="greeting" data-testid="greeting">
          {look.greeting}
        </p>
        {replyIn !== null && <p className="reply-time">We usually reply {replyTimeText(replyIn)}.</p>}
        {!online && !away && <ContactForm chat={chat} intro={OFFLINE_INTRO} />}
        <MessageLog messages={state.messages} apiUrl={apiUrl} refresh={chat.freshAttachment} />
        {resolved && (
          <>
            <p className="note" role="status">
              This conversation is resolved. Write again within 7 days to reopen it.
            </p>
            <ResolutionRating key={conversation.resolvedAt} conversation={conversation} rate={chat.rate} />
          </>
        )}
      </div>

      <p className="typing" aria-live="polite">
        {typing}
      </p>
      {state.error && (
        <p role="alert" className="error">
          {state.error}
        </p>
      )}
      <Composer chat={chat} apiUrl={apiUrl} />
    </main>
  );
}

function MessageLog({ messages, apiUrl, refresh }: { messages: Message[]; apiUrl: string; refresh: Chat["freshAttachment"] }) {
  return (
    <div role="log" aria-live="polite" aria-label="Messages" className="log">
      <ol>
        {messages.map((m) => (
          <li key={m.id} className={`message ${m.kind}`} data-message-id={m.id}>
            {m.kind === "incoming" ? <span className="author">You</span> : <AgentAuthor message={m} />}
            {m.body ? <p className="text">{m.body}</p> : null}
            <MessageFiles apiUrl={apiUrl} attachments={m.attachments ?? []} refresh={refresh} />
            <time dateTime={m.createdAt}>
              {new Date(m.createdAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
            </time>
          </li>
        ))}
      </ol>
    </div>
  );
}

function AgentAuthor({ message }: { message: Message }) {
  const agent = agentLook(message);
  return (
    <span className="author">
      {agent.avatarUrl ? (
        // eslint-disable-next-line @next/next/no-img-element -- an agent's picture from any host; no optimizer
        <img className="avatar" src={agent.avatarUrl} alt="" width={24} height={24} />
      ) : (
        <span className="avatar initials" aria-hidden="true">
          {agent.initials}
        </span>
      )}
      {agent.name}
    </span>
  );
}

/** Seconds until `until`, counted down once a second (0 when not blocked). */
function useSecondsLeft(until: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    const tick = () => {
      const now = Date.now();
      setNow(now);
      if (now >= until) clearInterval(timer);
    };
    const timer = setInterval(tick, 1000);
    const first = setTimeout(tick, 0); // at once: `now` may be from long ago
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [until]);
  return secondsLeft(until, now);
}

function Composer({ chat, apiUrl }: { chat: Chat; apiUrl: string }) {
  const [draft, setDraft] = useState("");
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const wait = useSecondsLeft(chat.state.blockedUntil);
  // Never cut: a text over the limit stays in the box, and the send waits until it is shorter.
  const length = checkLength(draft);
  const files = useFileDrafts(chat.upload, VISITOR_MAX_BYTES);
  // Text, files, or both; never while a file is still uploading.
  const sendable = (draft.trim() !== "" || files.ids.length > 0) && !files.uploading && !length.over && wait === 0;

  // The loader opened the chat: straight to the message box.
  useEffect(() => {
    if (chat.opened > 0) box.current?.focus();
  }, [chat.opened]);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!sendable || sending) return;
    setSending(true);
    const sent = await chat.send(draft.trim(), files.ids);
    setSending(false);
    if (sent) {
      setDraft("");
      files.clear();
    }
  }

  // A pasted image (a screenshot) or file is attached; pasted text goes in as usual.
  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    const { files: pasted, hasText } = transferFiles(event.clipboardData);
    if (!pasted.length) return;
    if (!hasText) event.preventDefault();
    files.add(pasted);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Enter sends; Shift+Enter is a new line; Enter while composing (IME) is not a send.
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <>
      {wait > 0 && (
        <p className="wait">
          You can send again in {wait} s.
        </p>
      )}
      {length.text && (
        <p id="message-length" className={length.over ? "length over" : "length"}>
          {length.text}
        </p>
      )}
      <p className="visually-hidden" aria-live="polite">
        {length.over ? "Your message is too long to send." : ""}
      </p>
      <DraftFiles apiUrl={apiUrl} drafts={files.drafts} onRemove={files.remove} />
      <form className="composer" onSubmit={submit}>
        <input
          id="attach"
          type="file"
          multiple
          className="visually-hidden"
          onChange={(e) => {
            files.add(Array.from(e.target.files ?? []));
            e.target.value = ""; // the same file may be chosen again
          }}
        />
        <label htmlFor="attach" className="attach" title="Attach a file">
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path
              fill="currentColor"
              d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5H9v9a3 3 0 0 0 6 0V5a4.5 4.5 0 0 0-9 0v11.5a6 6 0 0 0 12 0v-10h-1.5z"
            />
          </svg>
          <span className="visually-hidden">Attach a file</span>
        </label>
        <label htmlFor="message" className="visually-hidden">
          Message
        </label>
        <textarea
          ref={box}
          id="message"
          name="message"
          rows={2}
          aria-describedby={length.text ? "message-length" : undefined}
          aria-invalid={length.over || undefined}
          placeholder="Write a message…"
          value={draft}
          onChange={(e) => {
            setDraft(e.target.value);
            if (e.target.value) chat.typing();
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <button type="submit" disabled={sending || !sendable} aria-busy={sending || undefined}>
          Send
        </button>
      </form>
    </>
  );
}

/**
 * Outside business hours: says so and asks for an email address with the contact form, or names
 * the address the visitor left (which then takes the focus from the form it replaces).
 */
function AwayNotice({ chat, email }: { chat: Chat; email: string | null }) {
  const notice = useRef<HTMLParagraphElement>(null);
  return (
    <div className="away">
      <p id="away-notice" ref={notice} className="away-text" role="status" tabIndex={-1}>
        {email ? `We're away right now. We'll reply to ${email}.` : "We're away right now. Leave your email and we'll reply by email."}
      </p>
      {!email && (
        <ContactForm
          chat={chat}
          labelledBy="away-notice"
          // No scrolling here: scrolling could move the host page around the iframe.
          onSaved={() => notice.current?.focus({ preventScroll: true })}
        />
      )}
    </div>
  );
}

/** The email form (`POST /widget/v1/contact`), under `intro` or named by the element `labelledBy`. */
function ContactForm({
  chat,
  intro,
  labelledBy,
  onSaved,
}: {
  chat: Chat;
  intro?: string;
  labelledBy?: string;
  onSaved?: () => void;
}) {
  const saved = chat.state.contact;
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [saving, setSaving] = useState(false);

  if (saved?.email) {
    return (
      <p className="contact-saved">
        Thanks! Replies you have not seen here will be emailed to {saved.email}, at most one email every 10 minutes.
      </p>
    );
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    const stored = await chat.saveContact({ email: email.trim(), ...(name.trim() ? { name: name.trim() } : {}) });
    setSaving(false);
    if (stored) onSaved?.();
  }

  return (
    <form className="contact" onSubmit={submit} aria-labelledby={labelledBy}>
      {intro && <p>{intro}</p>}
      <label htmlFor="contact-email">Email</label>
      <input
        id="contact-email"
        type="email"
        autoComplete="email"
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <label htmlFor="contact-name">Name</label>
      <input id="contact-name" type="text" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
      <button type="submit" disabled={saving}>
        Submit
      </button>
    </form>
  );
}
