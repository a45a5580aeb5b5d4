"use client";

// The ticket list with its filters; each ticket opens on its own page (`/tickets/{id}`).

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { unwrap } from "@/api/client";
import { keys, type TicketFilter } from "@/api/keys";
import { type Priority, type Ticket, TICKET_STATUSES, type TicketStatus } from "@/api/types";
import { useAgentNames, useAgents } from "@/api/useAgents";
import { Dialog, ErrorMessage, fieldErrors, formatTime, formText, SelectField, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { priorityLabel, statusLabel } from "@/lib/labels";
import { useWorkspace } from "../WorkspaceContext";
import { TicketFields } from "./TicketFields";

export function Tickets() {
  const api = useApi();
  const router = useRouter();
  const { workspace, me } = useWorkspace();
  const [filter, setFilter] = useState<TicketFilter>({ status: null, assignee: null });
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
              {statusLabel(s)}
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
      <section aria-label="Ticket list" className="ticket-list">
        <ErrorMessage error={list.error} />
        {list.isPending && !list.isError ? <p role="status">Loading tickets…</p> : null}
        {list.isSuccess && tickets.length === 0 ? <p className="muted">No tickets match.</p> : null}
        {tickets.length > 0 ? (
          <div className="table-scroll">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Ticket</th>
                  <th scope="col">Requester</th>
                  <th scope="col">Status</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {tickets.map((t) => (
                  <tr key={t.id}>
                    <th scope="row">
                      <Link href={`/tickets/${t.id}`}>
                        #{t.number} {t.subject}
                      </Link>
                    </th>
                    <td>{t.requester.displayName}</td>
                    <td>
                      <span className={`badge status-${t.status}`}>{statusLabel(t.status)}</span>
                    </td>
                    <td>{priorityLabel(t.priority)}</td>
                    <td>{t.assigneeId ? (names.get(t.assigneeId)?.displayName ?? "an agent") : "Unassigned"}</td>
                    <td>{formatTime(t.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {list.hasNextPage ? (
          <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            Load more tickets
          </button>
        ) : null}
      </section>
      <NewTicketDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(ticket) => {
          setCreating(false);
          router.push(`/tickets/${ticket.id}`);
        }}
      />
    </div>
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
