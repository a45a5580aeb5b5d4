"use client";

// One ticket on its own page (`/tickets/{id}`): its fields to edit, resolve, and its comments.
// Kept current by hub events like every other cached record.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { type Priority, type Ticket, TICKET_STATUSES, type TicketStatus } from "@/api/types";
import { useAgentNames } from "@/api/useAgents";
import { ContactEmail, ErrorMessage, formatTime, formText, SelectField, StatusMessage, SubmitButton, TextArea } from "@/components/ui";
import { useApi } from "@/app/providers";
import { priorityLabel, statusLabel } from "@/lib/labels";
import { useWorkspace } from "../WorkspaceContext";
import { TicketFields } from "./TicketFields";

export function TicketDetail({ ticketId }: { ticketId: string }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const names = useAgentNames(workspace.id);
  const ticket = useQuery({
    queryKey: keys.ticket(workspace.id, ticketId),
    queryFn: () => unwrap(api.workspace.GET("/api/tickets/{id}", { params: { path: { id: ticketId } } })),
  });
  const updated = (t: Ticket) => {
    queryClient.setQueryData(keys.ticket(workspace.id, t.id), t);
    void queryClient.invalidateQueries({ queryKey: keys.tickets(workspace.id) });
  };
  const save = useMutation({
    mutationFn: (form: FormData) => {
      // The assignee only when it changed: an unchanged one who is no longer active would be
      // refused as a new assignment.
      const assigneeId = formText(form, "assigneeId");
      return unwrap(
        api.workspace.PATCH("/api/tickets/{id}", {
          params: { path: { id: ticketId } },
          body: {
            subject: formText(form, "subject") ?? "",
            description: formText(form, "description"),
            priority: formText(form, "priority") as Priority | null,
            ...(assigneeId !== (ticket.data?.assigneeId ?? null) ? { assigneeId } : {}),
            status: (formText(form, "status") ?? "open") as TicketStatus,
          },
        }),
      );
    },
    onSuccess: updated,
  });
  const resolve = useMutation({
    mutationFn: () => unwrap(api.workspace.POST("/api/tickets/{id}/resolve", { params: { path: { id: ticketId } } })),
    onSuccess: updated,
  });
  const comments = useQuery({
    queryKey: keys.comments(workspace.id, ticketId),
    queryFn: () => unwrap(api.workspace.GET("/api/tickets/{id}/comments", { params: { path: { id: ticketId }, query: { limit: 200 } } })),
  });
  const comment = useMutation({
    mutationFn: (body: string) => unwrap(api.workspace.POST("/api/tickets/{id}/comments", { params: { path: { id: ticketId } }, body: { body } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.comments(workspace.id, ticketId) }),
  });
  const back = (
    <p>
      <Link href="/tickets">← All tickets</Link>
    </p>
  );
  if (ticket.isError) {
    return (
      <div className="page ticket-page">
        {back}
        <h1>Ticket</h1>
        <ErrorMessage error={ticket.error} />
      </div>
    );
  }
  if (!ticket.data) {
    return (
      <div className="page ticket-page">
        {back}
        <p role="status">Loading ticket…</p>
      </div>
    );
  }
  const t = ticket.data;
  return (
    <div className="page ticket-page">
      {back}
      <h1>
        Ticket #{t.number}: {t.subject}
      </h1>
      <p className="ticket-summary">
        <span className={`badge status-${t.status}`}>{statusLabel(t.status)}</span>{" "}
        <span className={`badge priority-${t.priority ?? "none"}`}>Priority: {priorityLabel(t.priority)}</span>
      </p>
      <p className="muted">
        Requester: {t.requester.displayName} <ContactEmail contact={t.requester} /> · created {formatTime(t.createdAt)}
        {t.resolvedAt ? ` · resolved ${formatTime(t.resolvedAt)}` : ""}
        {t.conversationId ? (
          <>
            {" · "}
            <Link href={`/inbox/${t.conversationId}`}>Open the conversation</Link>
          </>
        ) : null}
      </p>
      <section className="panel" aria-labelledby="ticket-edit-heading">
        <h2 id="ticket-edit-heading">Details</h2>
        <form
          key={t.updatedAt}
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate(new FormData(event.currentTarget));
          }}
        >
          <TicketFields ticket={t} error={save.error} />
          <SelectField label="Ticket status" name="status" defaultValue={t.status}>
            {TICKET_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </SelectField>
          <ErrorMessage error={save.error ?? resolve.error} />
          {save.isSuccess ? <StatusMessage>Ticket saved.</StatusMessage> : null}
          <div className="row">
            <SubmitButton pending={save.isPending} pendingText="Saving…">
              Save ticket
            </SubmitButton>
            {t.status !== "resolved" && t.status !== "closed" ? (
              <button type="button" onClick={() => resolve.mutate()} disabled={resolve.isPending}>
                Resolve ticket
              </button>
            ) : null}
          </div>
        </form>
      </section>
      <section className="panel" aria-labelledby="ticket-comments-heading">
        <h2 id="ticket-comments-heading">Comments</h2>
        <ErrorMessage error={comments.error} />
        {comments.isSuccess && comments.data.comments.length === 0 ? <p className="muted">No comments yet.</p> : null}
        <ol className="comments" aria-label="Comments">
          {(comments.data?.comments ?? []).map((c) => (
            <li key={c.id}>
              <div className="message-meta">
                <span className="author">{names.get(c.authorAgentId)?.displayName ?? "Agent"}</span>
                <time dateTime={c.createdAt}>{formatTime(c.createdAt)}</time>
              </div>
              <p className="message-body">{c.body}</p>
            </li>
          ))}
        </ol>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const formElement = event.currentTarget;
            const body = formText(new FormData(formElement), "comment");
            if (body) comment.mutate(body, { onSuccess: () => formElement.reset() });
          }}
        >
          <TextArea label="Comment" name="comment" rows={3} required />
          <ErrorMessage error={comment.error} />
          <SubmitButton pending={comment.isPending} pendingText="Adding…">
            Add comment
          </SubmitButton>
        </form>
      </section>
    </div>
  );
}
