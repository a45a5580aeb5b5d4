"use client";

// The IMAP mailbox the workspace's mail is taken from: where it is, who logs in (the password
// is write-only: left empty, the saved one is kept), which folder, and how watching it goes.
// The server keeps watching with IDLE; a failure shows here with the server's words.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { EmailSettings } from "@/api/types";
import { useApi } from "@/app/providers";
import { Checkbox, ErrorMessage, fieldErrors, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { mailboxStatusLabel } from "@/lib/email";
import { useWorkspace } from "../WorkspaceContext";

type Mailbox = NonNullable<EmailSettings["imap"]>;

export function MailboxSettings({ mailbox }: { mailbox: Mailbox | null | undefined }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (imap: Parameters<typeof body>[0]) =>
      unwrap(api.workspace.PUT("/api/settings/email", { body: body(imap) })),
    onSuccess: (data: EmailSettings) => queryClient.setQueryData(keys.email(workspace.id), data),
  });
  const errors = (field: string) => fieldErrors(save.error, `imap.${field}`);
  return (
    <form
      aria-labelledby="mailbox-heading"
      key={mailbox ? `${mailbox.host}:${mailbox.port}:${mailbox.user}:${mailbox.folder}` : "none"}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        save.mutate({
          host: formText(form, "host") ?? "",
          port: Number(formText(form, "port") ?? "993"),
          tls: form.get("tls") === "on",
          user: formText(form, "user") ?? "",
          password: formText(form, "password"),
          folder: formText(form, "folder"),
        });
      }}
    >
      <h3 id="mailbox-heading">IMAP mailbox</h3>
      <p className="hint">
        Instead of forwarding, connect the support address&apos;s mailbox: new mail is taken from it as it arrives. Nothing is deleted or
        marked read there.
      </p>
      {mailbox ? (
        <p role={mailbox.status === "failing" ? "alert" : "status"}>
          {mailboxStatusLabel(mailbox.status, mailbox.lastError ?? null)}
        </p>
      ) : null}
      <TextField label="IMAP server" name="host" defaultValue={mailbox?.host ?? ""} placeholder="imap.example.com" errors={errors("host")} />
      <TextField label="Port" name="port" type="number" min={1} max={65535} defaultValue={String(mailbox?.port ?? 993)} errors={errors("port")} />
      <Checkbox label="Use TLS (port 993)" name="tls" defaultChecked={mailbox?.tls ?? true} />
      <TextField label="User name" name="user" autoComplete="off" defaultValue={mailbox?.user ?? ""} errors={errors("user")} />
      <TextField
        label="Password or app password"
        name="password"
        type="password"
        autoComplete="new-password"
        hint={mailbox ? "Leave empty to keep the saved password." : undefined}
        errors={errors("password")}
      />
      <TextField label="Folder" name="folder" defaultValue={mailbox?.folder ?? "INBOX"} errors={errors("folder")} />
      <ErrorMessage error={save.error} />
      {save.isSuccess ? <StatusMessage>{save.data.imap ? "Mailbox saved: connecting." : "Mailbox disconnected."}</StatusMessage> : null}
      <div className="row">
        <SubmitButton pending={save.isPending} pendingText="Saving…">
          {mailbox ? "Save mailbox" : "Connect mailbox"}
        </SubmitButton>
        {mailbox ? (
          <button type="button" onClick={() => save.mutate(null)} disabled={save.isPending}>
            Disconnect mailbox
          </button>
        ) : null}
      </div>
    </form>
  );
}

type MailboxForm = { host: string; port: number; tls: boolean; user: string; password: string | null; folder: string | null } | null;

/** The request body: the mailbox (without an empty password, which keeps the saved one) or null. */
function body(imap: MailboxForm) {
  if (imap === null) return { imap: null };
  const { password, folder, ...rest } = imap;
  return { imap: { ...rest, ...(password ? { password } : {}), ...(folder ? { folder } : {}) } };
}
