"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { type Conversation, PRIORITIES, type Priority } from "@/api/types";
import { Dialog, ErrorMessage, fieldErrors, formText, SelectField, SubmitButton, TextArea, TextField } from "@/components/ui";
import { requesterDefaults } from "@/lib/format";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../../WorkspaceContext";

/**
 * "Create ticket" from a conversation: POST /api/tickets with its id and a requester. The
 * requester is filled in from the contact's established email only: an address the visitor
 * typed is their word, and a ticket filed under it would go to whoever owns it.
 */
export function CreateTicketDialog({ open, onClose, conversation }: { open: boolean; onClose: () => void; conversation: Conversation }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: { subject: string; description: string | null; priority: Priority | null; requester: { email: string; name: string | null } }) =>
      unwrap(api.workspace.POST("/api/tickets", { body: { ...body, conversationId: conversation.id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.tickets(workspace.id) }),
  });
  const close = () => {
    create.reset();
    onClose();
  };
  const requester = requesterDefaults(conversation.contact);
  const claimed = conversation.contact.email ? null : conversation.contact.claimedEmail;
  return (
    <Dialog open={open} title="Create ticket" onClose={close}>
      {create.isSuccess ? (
        <div>
          <p role="status">
            Ticket #{create.data.number} created. <Link href={`/tickets?open=${create.data.id}`}>Open it in Tickets</Link>
          </p>
          <button type="button" onClick={close}>
            Done
          </button>
        </div>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            create.mutate({
              subject: formText(form, "subject") ?? "",
              description: formText(form, "description"),
              priority: (formText(form, "priority") as Priority | null) ?? null,
              requester: { email: formText(form, "email") ?? "", name: formText(form, "name") },
            });
          }}
        >
          <TextField
            label="Subject"
            name="subject"
            required
            defaultValue={conversation.subject ?? `Conversation #${conversation.number}`}
            errors={fieldErrors(create.error, "subject")}
            autoFocus
          />
          <TextArea label="Description" name="description" rows={4} />
          <TextField
            label="Requester email"
            name="email"
            type="email"
            required
            defaultValue={requester.email}
            hint={
              claimed ? (
                <>
                  The visitor typed {claimed} (unverified), so it is not filled in: enter the requester&apos;s address once you
                  know it is theirs.
                </>
              ) : undefined
            }
            errors={fieldErrors(create.error, "requester.email")}
          />
          <TextField label="Requester name" name="name" defaultValue={requester.name} />
          <SelectField label="Priority" name="priority" defaultValue={conversation.priority ?? ""}>
            <option value="">None</option>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </SelectField>
          <ErrorMessage error={create.error} />
          <SubmitButton pending={create.isPending} pendingText="Creating…">
            Create ticket
          </SubmitButton>
        </form>
      )}
    </Dialog>
  );
}
