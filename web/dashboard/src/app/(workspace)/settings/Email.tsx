"use client";

// The email channel: the forwarding address mail must be forwarded to (read only), the
// support address customers write to, which replies come from (clearing it sends replies from
// the forwarding address), the IMAP mailbox mail may be taken from (Mailbox.tsx) and the
// outgoing mail server replies may leave through (Smtp.tsx). While a test email is on its way
// through that server, the settings are read again every 1.5 s until its status says how it went.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { EmailSettings } from "@/api/types";
import { CopyButton, ErrorMessage, fieldErrors, formText, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../WorkspaceContext";
import { MailboxSettings } from "./Mailbox";
import { SmtpSettings } from "./Smtp";

/** How often the settings are read again while a test email is being sent. */
const SMTP_TEST_POLL_MS = 1_500;

export function EmailChannel() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const forwardingId = useId();
  const settings = useQuery({
    queryKey: keys.email(workspace.id),
    queryFn: () => unwrap(api.workspace.GET("/api/settings/email")),
    refetchInterval: (q) => (q.state.data?.smtp?.status === "testing" ? SMTP_TEST_POLL_MS : false),
  });
  const save = useMutation({
    mutationFn: (address: string | null) => unwrap(api.workspace.PUT("/api/settings/email", { body: { address } })),
    onSuccess: (data: EmailSettings) => queryClient.setQueryData(keys.email(workspace.id), data),
  });
  const data = settings.data;
  return (
    <section aria-labelledby="email-heading" className="panel">
      <h2 id="email-heading">Email</h2>
      <p className="hint">Forward mail sent to your support address to the forwarding address, or connect its mailbox below; replies go out from your support address&apos;s name.</p>
      <ErrorMessage error={settings.error} />
      {data ? (
        <>
          <div className="field">
            <label htmlFor={forwardingId}>Forwarding address</label>
            <div className="row">
              <input
                id={forwardingId}
                aria-label="Forwarding address"
                readOnly
                value={data.inboundAddress}
                className="mono"
                onFocus={(e) => e.currentTarget.select()}
              />
              <CopyButton text={data.inboundAddress} label="Copy forwarding address" />
            </div>
          </div>

          <form
            key={data.address ?? ""}
            onSubmit={(event) => {
              event.preventDefault();
              save.mutate(formText(new FormData(event.currentTarget), "address"));
            }}
          >
            <TextField
              label="Support address"
              name="address"
              type="email"
              autoComplete="off"
              defaultValue={data.address ?? ""}
              placeholder="support@example.com"
              hint={
                data.address
                  ? "Customers write to this address, and replies come from it. Clear it to send replies from the forwarding address."
                  : "Not set: replies come from the forwarding address until you set the address customers write to."
              }
              errors={fieldErrors(save.error, "address")}
            />
            <ErrorMessage error={save.error} />
            {save.isSuccess ? <StatusMessage>{save.data.address ? "Support address saved." : "Support address cleared."}</StatusMessage> : null}
            <div className="row">
              <SubmitButton pending={save.isPending} pendingText="Saving…">
                Save support address
              </SubmitButton>
              {data.address ? (
                <button type="button" onClick={() => save.mutate(null)} disabled={save.isPending}>
                  Clear support address
                </button>
              ) : null}
            </div>
          </form>

          <MailboxSettings mailbox={data.imap} />

          <SmtpSettings smtp={data.smtp} hasAddress={Boolean(data.address)} />
        </>
      ) : settings.isPending ? (
        <p role="status">Loading email settings…</p>
      ) : null}
    </section>
  );
}
