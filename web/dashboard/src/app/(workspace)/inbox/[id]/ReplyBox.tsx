"use client";

// The reply box: a reply to the visitor or a private note. One listbox under the box offers
// canned responses ("/" and a short code) or, in a note, active agents to mention ("@" and a
// name); arrows move, Enter or Tab inserts, Escape closes. Enter or Ctrl/Cmd+Enter sends, as
// the agent's `sendWithEnter` preference says (lib/replyKeys). A counter appears near the
// 10,000-character limit; over it, sending is disabled and the text is kept as typed.
// Files: the attach button (a labelled file input), a drop onto the box, or a pasted image (a
// screenshot) upload at once and show as chips; the reply or note carries them by id, and may
// then have no text. On an email conversation the reply is sent by email, and To and Cc show
// above the box, filled with the thread's recipients (lib/recipients) as comma-separated
// addresses the agent may edit; a field is sent only when the agent changed its addresses, so
// the API keeps the thread's otherwise. Notes and chat replies have no recipients.

import { typingNotifier, type TypingNotifier } from "@supportdesk/shared/typing";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { transferFiles } from "@supportdesk/shared/attachments";
import { type ClipboardEvent, type DragEvent, type KeyboardEvent, type RefObject, useCallback, useEffect, useId, useRef, useState } from "react";
import { AGENT_MAX_BYTES, uploadAttachment } from "@/api/attachments";
import { unwrap } from "@/api/client";
import { errorDetail } from "@/api/errors";
import { keys } from "@/api/keys";
import type { CannedResponse, Contact } from "@/api/types";
import { useAgents } from "@/api/useAgents";
import { DraftFiles } from "@/components/attachments/DraftFiles";
import { useFileDrafts } from "@/components/attachments/useFileDrafts";
import { ErrorMessage, fieldErrors } from "@/components/ui";
import { useApi } from "@/app/providers";
import { insertCanned, shortcodeAt } from "@/lib/canned";
import { counterState, MESSAGE_LIMIT } from "@/lib/counter";
import { insertMention, matchAgents, mentionAt } from "@/lib/mention";
import { needsNameFallback } from "@/lib/placeholders";
import { addressListProblem, chosenRecipients, formatAddressList, type Recipients } from "@/lib/recipients";
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

/** Text typed in the To and Cc fields; null while the agent has not touched one. */
type EditedRecipients = { to: string | null; cc: string | null };
const UNTOUCHED: EditedRecipients = { to: null, cc: null };

/**
 * `email`: on an email conversation, the thread's recipients (lib/recipients), which the reply
 * goes to unless the agent changes them; null on any other conversation.
 */
export function ReplyBox({ conversationId, contact, email = null }: { conversationId: string; contact: Contact; email?: Recipients | null }) {
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
  const [dragging, setDragging] = useState(false);
  const fileInputId = useId();
  const upload = useCallback((file: File, signal: AbortSignal) => uploadAttachment(api, conversationId, file, signal), [api, conversationId]);
  const files = useFileDrafts(upload, AGENT_MAX_BYTES, errorDetail);
  const [edited, setEdited] = useState<EditedRecipients>(UNTOUCHED);
  /** Whether a send was refused for the recipients: their problems show until fixed. */
  const [checkRecipients, setCheckRecipients] = useState(false);
  const toRef = useRef<HTMLInputElement>(null);
  const ccRef = useRef<HTMLInputElement>(null);
  const byEmail = mode === "reply" && email !== null;
  const chosen = byEmail ? chosenRecipients(email, edited) : {};
  const problems = {
    to: chosen.to ? addressListProblem(chosen.to, true) : null,
    cc: chosen.cc ? addressListProblem(chosen.cc, false) : null,
  };

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
    mutationFn: ({ mode, body, attachmentIds, recipients }: { mode: Mode; body: string; attachmentIds: string[]; recipients: Partial<Recipients> }) => {
      const request = { params: { path: { id: conversationId } }, body: { body, ...(attachmentIds.length ? { attachmentIds } : {}), ...recipients } };
      return unwrap(
        mode === "reply"
          ? api.workspace.POST("/api/conversations/{id}/messages", request)
          : api.workspace.POST("/api/conversations/{id}/notes", request),
      );
    },
    onSuccess: (message) => {
      queryClient.setQueryData<MessagePages>(keys.messages(workspace.id, conversationId), (data) =>
        appendMessage(data, { conversationId, message }),
      );
      setText("");
      setCannedWarning(false);
      setEdited(UNTOUCHED);
      setCheckRecipients(false);
      files.clear();
      boxRef.current?.focus();
    },
    // Refused for its recipients: the field that says why takes the focus.
    onError: (error) => {
      if (fieldErrors(error, "to").length) toRef.current?.focus();
      else if (fieldErrors(error, "cc").length) ccRef.current?.focus();
    },
  });
  // Text, files, or both; never while a file is still uploading.
  const sendable = (text.trim() !== "" || files.ids.length > 0) && !files.uploading && !counter.over;
  const submit = () => {
    if (!sendable || post.isPending) return;
    if (problems.to || problems.cc) {
      setCheckRecipients(true);
      (problems.to ? toRef : ccRef).current?.focus();
      return;
    }
    stopTyping();
    post.mutate({ mode, body: text.trim(), attachmentIds: files.ids, recipients: chosen });
  };

  // A pasted image (a screenshot) or any pasted file is attached; pasted text goes in as usual.
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const { files: pasted, hasText } = transferFiles(event.clipboardData);
    if (!pasted.length) return;
    if (!hasText) event.preventDefault();
    files.add(pasted);
  };
  const dragsFiles = (event: DragEvent) => Array.from(event.dataTransfer.types).includes("Files");
  const onDragOver = (event: DragEvent<HTMLFormElement>) => {
    if (!dragsFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    setDragging(true);
  };
  const onDragLeave = (event: DragEvent<HTMLFormElement>) => {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
  };
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    if (!dragsFiles(event)) return;
    event.preventDefault();
    setDragging(false);
    files.add(transferFiles(event.dataTransfer).files);
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

  const label = mode === "note" ? "Private note" : email ? "Reply by email" : "Reply to the visitor";
  const editRecipients = (field: keyof EditedRecipients, value: string) => {
    setEdited((e) => ({ ...e, [field]: value }));
    if (post.error) post.reset(); // the API's word on the old addresses no longer holds
  };
  const describedBy = [hintId, counter.shown ? counterId : null].filter(Boolean).join(" ");
  return (
    <form
      className={`reply-box reply-${mode}${dragging ? " dragging" : ""}`}
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      onDragOver={onDragOver}
      onDragLeave={onDragLeave}
      onDrop={onDrop}
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
      {byEmail ? (
        <fieldset className="recipients">
          <legend className="visually-hidden">Recipients</legend>
          <RecipientsField
            label="To"
            inputRef={toRef}
            value={edited.to ?? formatAddressList(email.to)}
            hintId={`${listId}-recipients-hint`}
            errors={[...(checkRecipients && problems.to ? [problems.to] : []), ...fieldErrors(post.error, "to")]}
            onChange={(value) => editRecipients("to", value)}
          />
          <RecipientsField
            label="Cc"
            inputRef={ccRef}
            value={edited.cc ?? formatAddressList(email.cc)}
            hintId={`${listId}-recipients-hint`}
            errors={[...(checkRecipients && problems.cc ? [problems.cc] : []), ...fieldErrors(post.error, "cc")]}
            onChange={(value) => editRecipients("cc", value)}
          />
          <p className="hint" id={`${listId}-recipients-hint`}>
            Addresses separated by commas.
          </p>
        </fieldset>
      ) : null}
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
          onPaste={onPaste}
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
            {mode === "note" ? "Type @ to mention a teammate. Notes are visible to your team only." : "Type / and a short code for a canned response."}{" "}
            {byEmail ? "Sent by email from your support address, with the files attached. " : null}
            Paste or drop files to attach them.
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
      <DraftFiles drafts={files.drafts} onRemove={files.remove} />
      {dragging ? (
        <p className="drop-hint" aria-hidden="true">
          Drop files to attach them
        </p>
      ) : null}
      <ErrorMessage error={post.error ?? render.error} />
      <div className="reply-actions">
        <span className="attach">
          <input
            id={fileInputId}
            type="file"
            multiple
            className="visually-hidden"
            onChange={(event) => {
              files.add(Array.from(event.target.files ?? []));
              event.target.value = ""; // the same file may be chosen again
            }}
          />
          <label htmlFor={fileInputId} className="button ghost">
            Attach files
          </label>
        </span>
        <button type="submit" disabled={post.isPending || !sendable} aria-busy={post.isPending || undefined}>
          {mode === "reply" ? "Send reply" : "Add note"}
        </button>
      </div>
    </form>
  );
}

/** To or Cc: comma-separated addresses, with what is wrong with them beside the field. */
function RecipientsField({
  label,
  value,
  hintId,
  errors,
  inputRef,
  onChange,
}: {
  label: string;
  value: string;
  hintId: string;
  errors: string[];
  inputRef: RefObject<HTMLInputElement | null>;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="recipient">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        ref={inputRef}
        type="text"
        inputMode="email"
        autoComplete="off"
        spellCheck={false}
        value={value}
        aria-describedby={errors.length ? `${hintId} ${errorId}` : hintId}
        aria-invalid={errors.length > 0 || undefined}
        onChange={(event) => onChange(event.target.value)}
        // Enter in an address field would submit the form: the reply is sent from its box only.
        onKeyDown={(event) => {
          if (event.key === "Enter") event.preventDefault();
        }}
      />
      {errors.length ? (
        <p className="field-error" id={errorId}>
          {errors.join("; ")}
        </p>
      ) : null}
    </div>
  );
}
