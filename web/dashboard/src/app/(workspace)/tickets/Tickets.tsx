"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { unwrap } from "@/api/client";
import { keys, type TicketFilter } from "@/api/keys";
import { PRIORITIES, type Priority, type Ticket, TICKET_STATUSES, type TicketStatus } from "@/api/types";
import { useAgentNames, useAgents } from "@/api/useAgents";
import { ContactEmail, Dialog, ErrorMessage, fieldErrors, formatTime, formText, SelectField, StatusMessage, SubmitButton, TextArea, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { capitalize } from "@/lib/format";
import { useWorkspace } from "../WorkspaceContext";

export function Tickets({ initialOpen }: { initialOpen: string | null }) {
  const api = useApi();
  const { workspace, me } = useWorkspace();
  const [filter, setFilter] = useState<TicketFilter>({ status: null, assignee: null });
  const [openId, setOpenId] = useState<string | null>(initialOpen);
  const [creating, setCreating] = useState(false);
  const agents = useAgents(workspace.id);
  const names = useAgentNames(workspace.id);
  const list = useInfiniteQuery({
    queryKey: keys.tickets(workspace.id, filter),
    queryFn: ({ pageParam }) =>
      unwrap(
        api.workspace.GET("/api/tickets", {
          params: {
            query: { status: filter.status ?? undefined, assignee: filter.assignee ?? undefined, limit: 50, cursor: pageParam ?? undefined },
          },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? null,
  });
  const tickets = list.data?.pages.flatMap((p) => p.tickets) ?? [];
  return (
    <div className="page tickets">
      <div className="page-header">
        <h1>Tickets</h1>
        <button type="button" onClick={() => setCreating(true)}>
          New ticket
        </button>
      </div>
      <div className="filters" role="group" aria-label="Filter tickets">
        <SelectField label="Status" value={filter.status ?? ""} onChange={(e) => setFilter({ ...filter, status: (e.target.value || null) as TicketStatus | null })}>
          <option value="">Any status</option>
          {TICKET_STATUSES.map((s) => (
            <option key={s} value={s}>
              {capitalize(s)}
            </option>
          ))}
        </SelectField>
        <SelectField label="Assignee" value={filter.assignee ?? ""} onChange={(e) => setFilter({ ...filter, assignee: e.target.value || null })}>
          <option value="">Anyone</option>
          {me ? <option value="me">Me</option> : null}
          <option value="unassigned">Unassigned</option>
          {(agents.data?.agents ?? []).map((a) => (
            <option key={a.id} value={a.id}>
              {a.displayName}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="tickets-body">
        <section aria-label="Ticket list" className="ticket-list">
          <ErrorMessage error={list.error} />
          {list.isPending && !list.isError ? <p role="status">Loading tickets…</p> : null}
          {list.isSuccess && tickets.length === 0 ? <p className="muted">No tickets match.</p> : null}
          {tickets.length > 0 ? (
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Ticket</th>
                  <th scope="col">Status</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {tickets.map((t) => (
                  <tr key={t.id} aria-current={t.id === openId ? "true" : undefined}>
                    <th scope="row">
                      <button type="button" className="link" onClick={() => setOpenId(t.id)}>
                        #{t.number} {t.subject}
                      </button>
                    </th>
                    <td>
                      <span className={`badge status-${t.status}`}>{t.status}</span>
                    </td>
                    <td>{t.priority ?? "—"}</td>
                    <td>{t.assigneeId ? (names.get(t.assigneeId)?.displayName ?? "an agent") : "Unassigned"}</td>
                    <td>{formatTime(t.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {list.hasNextPage ? (
            <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              Load more tickets
            </button>
          ) : null}
        </section>
        {openId ? <TicketDetail key={openId} ticketId={openId} onClose={() => setOpenId(null)} /> : null}
      </div>
      <NewTicketDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(ticket) => {
          setCreating(false);
          setOpenId(ticket.id);
        }}
      />
    </div>
  );
}

function TicketFields({ ticket, error }: { ticket?: Ticket; error: unknown }) {
  const { workspace } = useWorkspace();
  const agents = useAgents(workspace.id);
  const names = useAgentNames(workspace.id);
  // An assignee who is no longer active (a resolved ticket keeps them) stays selected and named,
  // instead of the select falling back to "Unassigned".
  const current = ticket?.assigneeId ?? null;
  const inactive = current !== null && agents.isSuccess && !agents.data.agents.some((a) => a.id === current) ? current : null;
  return (
    <>
      <TextField label="Subject" name="subject" required defaultValue={ticket?.subject ?? ""} errors={fieldErrors(error, "subject")} />
      <TextArea label="Description" name="description" rows={4} defaultValue={ticket?.description ?? ""} />
      <SelectField label="Priority" name="priority" defaultValue={ticket?.priority ?? ""}>
        <option value="">None</option>
        {PRIORITIES.map((p) => (
          <option key={p} value={p}>
            {capitalize(p)}
          </option>
        ))}
      </SelectField>
      {/* Mounted again once the agents load, so the default finds its option. */}
      <SelectField key={agents.isSuccess ? "agents" : "loading"} label="Assignee" name="assigneeId" defaultValue={current ?? ""}>
        <option value="">Unassigned</option>
        {inactive ? <option value={inactive}>{`${names.get(inactive)?.displayName ?? "Former agent"} (inactive)`}</option> : null}
        {(agents.data?.agents ?? []).map((a) => (
          <option key={a.id} value={a.id}>
            {a.displayName}
          </option>
        ))}
      </SelectField>
    </>
  );
}

function NewTicketDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (ticket: Ticket) => void }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (form: FormData) =>
      unwrap(
        api.workspace.POST("/api/tickets", {
          body: {
            subject: formText(form, "subject") ?? "",
            description: formText(form, "description"),
            priority: formText(form, "priority") as Priority | null,
            assigneeId: formText(form, "assigneeId"),
            requester: { email: formText(form, "email") ?? "", name: formText(form, "name") },
          },
        }),
      ),
    onSuccess: (ticket) => {
      void queryClient.invalidateQueries({ queryKey: keys.tickets(workspace.id) });
      onCreated(ticket);
    },
  });
  return (
    <Dialog
      open={open}
      title="New ticket"
      onClose={() => {
        create.reset();
        onClose();
      }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(new FormData(event.currentTarget));
        }}
      >
        <TicketFields error={create.error} />
        <TextField label="Requester email" name="email" type="email" required errors={fieldErrors(create.error, "requester.email")} />
        <TextField label="Requester name" name="name" />
        <ErrorMessage error={create.error} />
        <SubmitButton pending={create.isPending} pendingText="Creating…">
          Create ticket
        </SubmitButton>
      </form>
    </Dialog>
  );
}

function TicketDetail({ ticketId, onClose }: { ticketId: string; onClose: () => void }) {
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
  if (ticket.isError) return <ErrorMessage error={ticket.error} />;
  if (!ticket.data) return <p role="status">Loading ticket…</p>;
  const t = ticket.data;
  return (
    <section className="ticket-detail panel" aria-labelledby="ticket-heading">
      <div className="page-header">
        <h2 id="ticket-heading">
          Ticket #{t.number}: {t.subject}
        </h2>
        <button type="button" className="ghost" onClick={onClose}>
          Close ticket panel
        </button>
      </div>
      <p className="muted">
        Requester: {t.requester.name ?? ""} <ContactEmail contact={t.requester} /> · created {formatTime(t.createdAt)}
        {t.resolvedAt ? ` · resolved ${formatTime(t.resolvedAt)}` : ""}
        {t.conversationId ? (
          <>
            {" · "}
            <Link href={`/inbox/${t.conversationId}`}>Open the conversation</Link>
          </>
        ) : null}
      </p>
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
              {capitalize(s)}
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
      <h3>Comments</h3>
      <ErrorMessage error={comments.error} />
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
  );
}
