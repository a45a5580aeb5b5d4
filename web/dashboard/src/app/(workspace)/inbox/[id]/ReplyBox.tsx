"use client";

// The reply box: a reply to the visitor or a private note, canned responses by "/" and a short
// code (a listbox under the box: arrows to move, Enter or Tab to insert, Escape to close), the
// agent's typing announced through the hub. Ctrl+Enter (or Cmd+Enter) sends.

import { typingNotifier, type TypingNotifier } from "@supportdesk/shared/typing";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { CannedResponse } from "@/api/types";
import { ErrorMessage } from "@/components/ui";
import { useApi } from "@/app/providers";
import { insertCanned, shortcodeAt } from "@/lib/canned";
import { useHub } from "@/realtime/HubProvider";
import { appendMessage, type MessagePages } from "@/realtime/reducers";
import { useWorkspace } from "../../WorkspaceContext";

type Mode = "reply" | "note";

export function ReplyBox({ conversationId }: { conversationId: string }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const { send: hubSend } = useHub();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<Mode>("reply");
  const [text, setText] = useState("");
  const [shortcode, setShortcode] = useState<{ query: string; start: number } | null>(null);
  const [active, setActive] = useState(0);
  const boxRef = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const hintId = useId();

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

  const canned = useQuery({
    queryKey: keys.canned(workspace.id, shortcode?.query ?? ""),
    queryFn: () => unwrap(api.workspace.GET("/api/canned-responses", { params: { query: { q: shortcode?.query ?? "", limit: 8 } } })),
    enabled: shortcode !== null,
    staleTime: 60_000,
  });
  const suggestions: CannedResponse[] = shortcode ? (canned.data?.cannedResponses ?? []) : [];
  const open = shortcode !== null && suggestions.length > 0;

  const render = useMutation({
    mutationFn: (response: CannedResponse) =>
      unwrap(api.workspace.POST("/api/canned-responses/{id}/render", { params: { path: { id: response.id } }, body: { conversationId } })),
  });
  const choose = (response: CannedResponse) => {
    const box = boxRef.current;
    if (!shortcode || !box) return;
    const start = shortcode.start;
    const caret = box.selectionStart;
    setShortcode(null);
    render.mutate(response, {
      onSuccess: ({ body }) => {
        const next = insertCanned(box.value, start, caret, body);
        setText(next.text);
        requestAnimationFrame(() => {
          box.focus();
          box.setSelectionRange(next.caret, next.caret);
        });
      },
    });
  };

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
      boxRef.current?.focus();
    },
  });
  const submit = () => {
    const body = text.trim();
    if (!body || post.isPending) return;
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
        const chosen = suggestions[Math.min(active, suggestions.length - 1)];
        if (chosen) choose(chosen);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setShortcode(null);
        return;
      }
    }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
    }
  };

  const label = mode === "reply" ? "Reply to the visitor" : "Private note";
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
          rows={4}
          value={text}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open ? `${listId}-${active}` : undefined}
          aria-describedby={hintId}
          onChange={(event) => {
            setText(event.target.value);
            const found = shortcodeAt(event.target.value, event.target.selectionStart);
            setShortcode(found);
            setActive(0);
            typed();
          }}
          onKeyDown={onKeyDown}
          onBlur={() => setTimeout(() => setShortcode(null), 150)}
        />
        <p className="hint" id={hintId}>
          Type / and a short code for a canned response. Ctrl+Enter sends.
          {mode === "note" ? " Notes are visible to your team only." : ""}
        </p>
        <ul id={listId} role="listbox" aria-label="Canned responses" className="suggestions" hidden={!open}>
          {suggestions.map((response, index) => (
            <li
              key={response.id}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              onMouseDown={(event) => {
                event.preventDefault();
                choose(response);
              }}
            >
              <strong>/{response.shortCode}</strong> {response.title}
            </li>
          ))}
        </ul>
      </div>
      <ErrorMessage error={post.error ?? render.error} />
      <button type="submit" disabled={post.isPending || !text.trim()}>
        {mode === "reply" ? "Send reply" : "Add note"}
      </button>
    </form>
  );
}
