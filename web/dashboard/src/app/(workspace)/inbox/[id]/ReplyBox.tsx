"use client";

// The reply box: a reply to the visitor or a private note. One listbox under the box offers
// canned responses ("/" and a short code) or, in a note, active agents to mention ("@" and a
// name); arrows move, Enter or Tab inserts, Escape closes. Enter or Ctrl/Cmd+Enter sends, as
// the agent's `sendWithEnter` preference says (lib/replyKeys). A counter appears near the
// 10,000-character limit; over it, sending is disabled and the text is kept as typed.

import { typingNotifier, type TypingNotifier } from "@supportdesk/shared/typing";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { CannedResponse, Contact } from "@/api/types";
import { useAgents } from "@/api/useAgents";
import { ErrorMessage } from "@/components/ui";
import { useApi } from "@/app/providers";
import { insertCanned, shortcodeAt } from "@/lib/canned";
import { counterState, MESSAGE_LIMIT } from "@/lib/counter";
import { insertMention, matchAgents, mentionAt } from "@/lib/mention";
import { needsNameFallback } from "@/lib/placeholders";
import { sendHint, sendsReply } from "@/lib/replyKeys";
import { useHub } from "@/realtime/HubProvider";
import { appendMessage, type MessagePages } from "@/realtime/reducers";
import { useWorkspace } from "../../WorkspaceContext";

type Mode = "reply" | "note";
type Trigger = { type: "canned" | "mention"; query: string; start: number };
interface Suggestion {
  key: string;
  label: string;
  detail: string;
  choose: () => void;
}

export function ReplyBox({ conversationId, contact }: { conversationId: string; contact: Contact }) {
  const api = useApi();
  const { workspace, me } = useWorkspace();
  const { send: hubSend } = useHub();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<Mode>("reply");
  const [text, setText] = useState("");
  const [trigger, setTrigger] = useState<Trigger | null>(null);
  const [active, setActive] = useState(0);
  const [cannedWarning, setCannedWarning] = useState(false);
  const boxRef = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const hintId = useId();
  const counterId = useId();
  const sendWithEnter = me?.sendWithEnter ?? true;
  const counter = counterState(text);

  // Typing: at most one "typing" per 3 s while keys are pressed, "stopped" after 4 s idle or on send.
  const typingRef = useRef<TypingNotifier | null>(null);
  useEffect(() => {
    const notifier = typingNotifier((isTyping) => void hubSend("Typing", conversationId, isTyping));
    typingRef.current = notifier;
    return () => notifier.dispose();
  }, [hubSend, conversationId]);
  const stopTyping = () => typingRef.current?.stop();
  const typed = () => {
    if (mode === "note") return; // notes are private: visitors never see the agent "typing" one
    typingRef.current?.input();
  };

  const cannedQuery = trigger?.type === "canned" ? trigger.query : null;
  const canned = useQuery({
    queryKey: keys.canned(workspace.id, cannedQuery ?? ""),
    queryFn: () => unwrap(api.workspace.GET("/api/canned-responses", { params: { query: { q: cannedQuery ?? "", limit: 8 } } })),
    enabled: cannedQuery !== null,
    staleTime: 60_000,
  });
  const agents = useAgents(workspace.id);

  /** Puts `next` in the box and the caret where it says, keeping focus in the box. */
  const replaceText = (next: { text: string; caret: number }) => {
    setText(next.text);
    requestAnimationFrame(() => {
      boxRef.current?.focus();
      boxRef.current?.setSelectionRange(next.caret, next.caret);
    });
  };

  const render = useMutation({
    mutationFn: (response: CannedResponse) =>
      unwrap(api.workspace.POST("/api/canned-responses/{id}/render", { params: { path: { id: response.id } }, body: { conversationId } })),
  });
  const chooseCanned = (response: CannedResponse, at: Trigger) => {
    const box = boxRef.current;
    if (!box) return;
    const caret = box.selectionStart;
    setTrigger(null);
    render.mutate(response, {
      onSuccess: ({ body }) => {
        setCannedWarning(needsNameFallback(response.body) && !contact.name);
        replaceText(insertCanned(box.value, at.start, caret, body));
      },
    });
  };
  const chooseAgent = (displayName: string, at: Trigger) => {
    const box = boxRef.current;
    if (!box) return;
    setTrigger(null);
    replaceText(insertMention(box.value, at.start, box.selectionStart, displayName));
  };

  const suggestions: Suggestion[] = !trigger
    ? []
    : trigger.type === "canned"
      ? (canned.data?.cannedResponses ?? []).map((r) => ({ key: r.id, label: `/${r.shortCode}`, detail: r.title, choose: () => chooseCanned(r, trigger) }))
      : matchAgents((agents.data?.agents ?? []).filter((a) => a.status === "active"), trigger.query).map((a) => ({
          key: a.id,
          label: `@${a.displayName}`,
          detail: a.id === me?.id ? "you" : "",
          choose: () => chooseAgent(a.displayName, trigger),
        }));
  const open = suggestions.length > 0;

  const post = useMutation({
    mutationFn: ({ mode, body }: { mode: Mode; body: string }) =>
      unwrap(
        mode === "reply"
          ? api.workspace.POST("/api/conversations/{id}/messages", { params: { path: { id: conversationId } }, body: { body } })
          : api.workspace.POST("/api/conversations/{id}/notes", { params: { path: { id: conversationId } }, body: { body } }),
      ),
    onSuccess: (message) => {
      queryClient.setQueryData<MessagePages>(keys.messages(workspace.id, conversationId), (data) =>
        appendMessage(data, { conversationId, message }),
      );
      setText("");
      setCannedWarning(false);
      boxRef.current?.focus();
    },
  });
  const submit = () => {
    const body = text.trim();
    if (!body || post.isPending || counter.over) return;
    stopTyping();
    post.mutate({ mode, body });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const delta = event.key === "ArrowDown" ? 1 : -1;
        setActive((i) => (i + delta + suggestions.length) % suggestions.length);
        return;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        suggestions[Math.min(active, suggestions.length - 1)]?.choose();
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setTrigger(null);
        return;
      }
    }
    if (sendsReply(
        { key: event.key, shiftKey: event.shiftKey, ctrlKey: event.ctrlKey, metaKey: event.metaKey, isComposing: event.nativeEvent.isComposing },
        sendWithEnter,
      )) {
      event.preventDefault();
      submit();
    }
  };

  const findTrigger = (value: string, caret: number): Trigger | null => {
    const mention = mode === "note" ? mentionAt(value, caret) : null;
    if (mention) return { type: "mention", ...mention };
    const code = shortcodeAt(value, caret);
    return code ? { type: "canned", ...code } : null;
  };

  const label = mode === "reply" ? "Reply to the visitor" : "Private note";
  const describedBy = [hintId, counter.shown ? counterId : null].filter(Boolean).join(" ");
  return (
    <form
      className={`reply-box reply-${mode}`}
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <fieldset className="mode">
        <legend>Mode</legend>
        {(["reply", "note"] as const).map((m) => (
          <label key={m}>
            <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
            {m === "reply" ? "Reply" : "Note"}
          </label>
        ))}
      </fieldset>
      <div className="field combobox">
        <label htmlFor={`${listId}-box`}>{label}</label>
        <textarea
          id={`${listId}-box`}
          ref={boxRef}
          rows={3}
          value={text}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open ? `${listId}-${active}` : undefined}
          aria-describedby={describedBy}
          aria-invalid={counter.over || undefined}
          onChange={(event) => {
            setText(event.target.value);
            setTrigger(findTrigger(event.target.value, event.target.selectionStart));
            setActive(0);
            typed();
          }}
          onKeyDown={onKeyDown}
          onBlur={() => setTimeout(() => setTrigger(null), 150)}
        />
        <ul id={listId} role="listbox" aria-label={trigger?.type === "mention" ? "Agents to mention" : "Canned responses"} className="suggestions" hidden={!open}>
          {suggestions.map((s, index) => (
            <li
              key={s.key}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              onMouseDown={(event) => {
                event.preventDefault();
                s.choose();
              }}
            >
              <strong>{s.label}</strong> {s.detail}
            </li>
          ))}
        </ul>
        <div className="reply-hints">
          <p className="hint" id={hintId}>
            <span className="send-hint">{sendHint(sendWithEnter)} </span>
            {mode === "note" ? "Type @ to mention a teammate. Notes are visible to your team only." : "Type / and a short code for a canned response."}
          </p>
          {counter.shown ? (
            <p id={counterId} className={counter.over ? "char-counter over" : "char-counter"} aria-live="polite">
              {counter.over
                ? `${counter.count.toLocaleString()} of ${MESSAGE_LIMIT.toLocaleString()} characters: ${(-counter.remaining).toLocaleString()} too many to send`
                : `${counter.remaining.toLocaleString()} characters left`}
            </p>
          ) : null}
        </div>
      </div>
      {cannedWarning ? (
        <p className="notice" role="status">
          This response uses the contact&apos;s name without a fallback, and this contact has no name: check the greeting before sending.
        </p>
      ) : null}
      <ErrorMessage error={post.error ?? render.error} />
      <button type="submit" disabled={post.isPending || !text.trim() || counter.over}>
        {mode === "reply" ? "Send reply" : "Add note"}
      </button>
    </form>
  );
}
