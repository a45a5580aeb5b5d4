"use client";

// "Create ticket" from a conversation: POST /api/tickets with the conversation's id and no
// requester, so the API files it under the conversation's contact (who may have no email). The
// subject and a transcript of the messages are filled in; private notes only when asked for.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { inboxKeys } from "@/lib/inboxKeys";
import type { Conversation, Message, Priority } from "@/api/types";
import { useAgentNames } from "@/api/useAgents";
import { Dialog, ErrorMessage, fieldErrors, formatTime, formText, SubmitButton, TextArea, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { transcript } from "@/lib/transcript";
import { PrioritySelect } from "../../tickets/TicketFields";
import { useWorkspace } from "../../WorkspaceContext";

/** The messages read for a transcript: pages of 200, at most this many pages. */
const TRANSCRIPT_PAGES = 5;

export function CreateTicketDialog({ open, onClose, conversation }: { open: boolean; onClose: () => void; conversation: Conversation }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: { subject: string; description: string | null; priority: Priority | null }) =>
      unwrap(api.workspace.POST("/api/tickets", { body: { ...body, conversationId: conversation.id } })),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.tickets(workspace.id) }),
        // The conversation's "Ticket #n created" line, and the contact panel's tickets.
        queryClient.invalidateQueries({ queryKey: inboxKeys.activity(workspace.id, conversation.id) }),
        queryClient.invalidateQueries({ queryKey: inboxKeys.contactTickets(workspace.id, conversation.contact.id) }),
      ]),
  });
  const close = () => {
    create.reset();
    onClose();
  };
  return (
    <Dialog open={open} title="Create ticket" onClose={close}>
      {create.isSuccess ? (
        <div>
          <p role="status">
            Ticket #{create.data.number} created. <Link href={`/tickets/${create.data.id}`}>Open ticket #{create.data.number}</Link>
          </p>
          <button type="button" onClick={close}>
            Done
          </button>
        </div>
      ) : open ? (
        <TicketForm conversation={conversation} pending={create.isPending} error={create.error} onSubmit={(body) => create.mutate(body)} />
      ) : null}
    </Dialog>
  );
}

function TicketForm({
  conversation,
  pending,
  error,
  onSubmit,
}: {
  conversation: Conversation;
  pending: boolean;
  error: unknown;
  onSubmit: (body: { subject: string; description: string | null; priority: Priority | null }) => void;
}) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const names = useAgentNames(workspace.id);
  const notesId = useId();
  const messages = useQuery({
    queryKey: ["ws", workspace.id, "transcript", conversation.id],
    queryFn: async (): Promise<Message[]> => {
      const all: Message[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < TRANSCRIPT_PAGES; page++) {
        const answer = await unwrap(
          api.workspace.GET("/api/conversations/{id}/messages", { params: { path: { id: conversation.id }, query: { limit: 200, cursor } } }),
        );
        all.push(...answer.messages);
        if (!answer.nextCursor) break;
        cursor = answer.nextCursor;
      }
      return all;
    },
    staleTime: 0,
  });
  const [includeNotes, setIncludeNotes] = useState(false);
  // The description is the agent's once they type in it; until then it follows the transcript.
  const [edited, setEdited] = useState<string | null>(null);
  const generated = messages.data
    ? transcript(messages.data, {
        includeNotes,
        contactName: conversation.contact.displayName,
        agentName: (id) => names.get(id)?.displayName,
        formatTime,
      })
    : "";
  const description = edited ?? generated;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        onSubmit({
          subject: formText(form, "subject") ?? "",
          description: formText(form, "description"),
          priority: (formText(form, "priority") as Priority | null) ?? null,
        });
      }}
    >
      <p>
        Requester: <strong>{conversation.contact.displayName}</strong>
        {conversation.contact.email ? <> ({conversation.contact.email})</> : null}, the conversation&apos;s contact.
      </p>
      <TextField
        label="Subject"
        name="subject"
        required
        defaultValue={conversation.subject ?? `Conversation #${conversation.number} with ${conversation.contact.displayName}`}
        errors={fieldErrors(error, "subject")}
        autoFocus
      />
      <div className="checkbox">
        <input
          id={notesId}
          type="checkbox"
          checked={includeNotes}
          disabled={edited !== null}
          onChange={(event) => setIncludeNotes(event.target.checked)}
        />
        <label htmlFor={notesId}>Include private notes in the transcript</label>
      </div>
      <ErrorMessage error={messages.error} />
      <TextArea
        label="Description"
        name="description"
        rows={8}
        value={description}
        onChange={(event) => setEdited(event.target.value)}
        hint={
          messages.isPending
            ? "Loading the transcript…"
            : edited !== null
              ? "Edited: the transcript no longer follows the notes choice."
              : "The conversation's transcript, oldest first; edit it as you like."
        }
        errors={fieldErrors(error, "description")}
      />
      <PrioritySelect defaultValue={conversation.priority ?? null} />
      <ErrorMessage error={error} />
      <SubmitButton pending={pending} pendingText="Creating…">
        Create ticket
      </SubmitButton>
    </form>
  );
}
