"use client";

// The contact beside the conversation (GET /api/contacts/{id}): who they are (name and email
// editable in place, their labels), where they are (page, referrer, browser, local time, as
// the widget reports them), their other conversations and their tickets.

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { unwrap } from "@/api/client";
import type { components } from "@/api/schema";
import type { Contact } from "@/api/types";
import { useApi } from "@/app/providers";
import { statusLabel } from "@/lib/labels";
import { inboxKeys } from "@/lib/inboxKeys";
import { localTimeIn } from "@/lib/time";
import { describeUserAgent } from "@/lib/userAgent";
import { Avatar } from "@/components/inbox/Avatar";
import { RelativeTime, useMinuteClock } from "@/components/inbox/RelativeTime";
import { LabelPicker } from "@/components/labels/LabelPicker";
import { ErrorMessage } from "@/components/ui";
import { EditableField } from "./EditableField";

type ContactDetails = components["schemas"]["ContactDetails"];
type VisitorContext = components["schemas"]["VisitorContext"];

export function ContactPanel({
  id,
  workspaceId,
  contact,
  conversationId,
  isOwner,
}: {
  id: string;
  workspaceId: string;
  contact: Contact;
  conversationId: string;
  isOwner: boolean;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const key = inboxKeys.contact(workspaceId, contact.id);
  const details = useQuery({
    queryKey: key,
    queryFn: () => unwrap(api.workspace.GET("/api/contacts/{id}", { params: { path: { id: contact.id } } })),
  });
  // The contact changed elsewhere (ContactUpdated over the hub reaches the conversation): read it again.
  const { name, email, claimedEmail } = contact;
  const labelIds = contact.labels?.map((label) => label.id).join(",");
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: key, exact: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` is derived from the ids listed
  }, [name, email, claimedEmail, labelIds, queryClient, workspaceId, contact.id]);

  const save = async (patch: { name?: string | null; email?: string | null }) => {
    const updated = await unwrap(api.workspace.PATCH("/api/contacts/{id}", { params: { path: { id: contact.id } }, body: patch }));
    queryClient.setQueryData<ContactDetails>(key, updated);
  };

  const c = details.data;
  return (
    <aside id={id} className="contact-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="visually-hidden">
        Contact
      </h2>
      <ErrorMessage error={details.error} />
      {!c ? (
        details.isPending ? <p role="status">Loading contact…</p> : null
      ) : (
        <>
          <div className="contact-identity">
            <Avatar id={c.id} name={c.displayName} />
            <p className="contact-name">{c.displayName}</p>
          </div>
          <EditableField label="Name" value={c.name ?? ""} placeholder="No name yet" onSave={(value) => save({ name: value || null })} />
          <EditableField
            label="Email"
            type="email"
            value={c.email ?? ""}
            placeholder="No established address"
            onSave={(value) => save({ email: value || null })}
          />
          <LabelPicker
            workspaceId={workspaceId}
            current={c.labels ?? []}
            of="this contact"
            isOwner={isOwner}
            save={async (ids) => {
              const updated = await unwrap(api.workspace.PUT("/api/contacts/{id}/labels", { params: { path: { id: contact.id } }, body: { labelIds: ids } }));
              queryClient.setQueryData<ContactDetails>(key, updated);
            }}
          />
          {c.claimedEmail && c.claimedEmail !== c.email ? (
            <p className="claimed-email">
              <span className="muted">Typed by the visitor: </span>
              {c.claimedEmail}{" "}
              <span className="badge badge-unverified">
                unverified<span className="visually-hidden">: not confirmed</span>
              </span>
            </p>
          ) : null}
          <dl className="contact-facts">
            {c.externalId ? (
              <>
                <dt>External id</dt>
                <dd className="mono">{c.externalId}</dd>
              </>
            ) : null}
            {c.visitor ? <VisitorFacts visitor={c.visitor} /> : null}
          </dl>
          <EarlierConversations workspaceId={workspaceId} contactId={c.id} currentId={conversationId} />
          <ContactTickets workspaceId={workspaceId} contactId={c.id} />
        </>
      )}
    </aside>
  );
}

function VisitorFacts({ visitor }: { visitor: VisitorContext }) {
  const now = useMinuteClock();
  const localTime = visitor.timeZone && now ? localTimeIn(visitor.timeZone, now) : null;
  return (
    <>
      {visitor.pageUrl ? (
        <>
          <dt>Current page</dt>
          <dd>
            <a href={visitor.pageUrl} target="_blank" rel="noreferrer noopener">
              {visitor.pageTitle || visitor.pageUrl}
            </a>
          </dd>
        </>
      ) : null}
      {visitor.referrer ? (
        <>
          <dt>Came from</dt>
          <dd className="clip">{visitor.referrer}</dd>
        </>
      ) : null}
      {visitor.userAgent ? (
        <>
          <dt>Browser</dt>
          <dd title={visitor.userAgent}>{describeUserAgent(visitor.userAgent)}</dd>
        </>
      ) : null}
      {localTime ? (
        <>
          <dt>Local time</dt>
          <dd>
            {localTime} <span className="muted">({visitor.timeZone})</span>
          </dd>
        </>
      ) : null}
      <dt>Last seen</dt>
      <dd>
        <RelativeTime iso={visitor.lastSeenAt} />
      </dd>
    </>
  );
}

function EarlierConversations({ workspaceId, contactId, currentId }: { workspaceId: string; contactId: string; currentId: string }) {
  const api = useApi();
  const list = useQuery({
    queryKey: inboxKeys.contactConversations(workspaceId, contactId),
    queryFn: () => unwrap(api.workspace.GET("/api/conversations", { params: { query: { contactId, limit: 20 } } })),
  });
  const others = (list.data?.conversations ?? []).filter((c) => c.id !== currentId);
  return (
    <section aria-labelledby="earlier-conversations" className="contact-section">
      <h3 id="earlier-conversations">Other conversations</h3>
      <ErrorMessage error={list.error} />
      {list.isSuccess && others.length === 0 ? <p className="muted">None.</p> : null}
      <ul className="contact-links">
        {others.map((c) => (
          <li key={c.id}>
            <Link href={`/inbox/${c.id}`}>
              #{c.number} {c.subject ?? c.lastMessage?.body ?? ""}
            </Link>{" "}
            <span className="muted">
              {statusLabel(c.status)} · <RelativeTime iso={c.lastMessageAt} />
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ContactTickets({ workspaceId, contactId }: { workspaceId: string; contactId: string }) {
  const api = useApi();
  const list = useQuery({
    queryKey: inboxKeys.contactTickets(workspaceId, contactId),
    queryFn: () => unwrap(api.workspace.GET("/api/tickets", { params: { query: { requesterId: contactId, limit: 20 } } })),
  });
  const tickets = list.data?.tickets ?? [];
  return (
    <section aria-labelledby="contact-tickets" className="contact-section">
      <h3 id="contact-tickets">Tickets</h3>
      <ErrorMessage error={list.error} />
      {list.isSuccess && tickets.length === 0 ? <p className="muted">None.</p> : null}
      <ul className="contact-links">
        {tickets.map((t) => (
          <li key={t.id}>
            <Link href={`/tickets/${t.id}`}>
              #{t.number} {t.subject}
            </Link>{" "}
            <span className="muted">{statusLabel(t.status)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
