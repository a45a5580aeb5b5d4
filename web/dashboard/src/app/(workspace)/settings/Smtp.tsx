"use client";

// The workspace's own outgoing mail server: replies to customers leave through it, from the
// support address (without one, through Support Desk's mail server under the workspace's
// name). Where it is, whether TLS is required, who logs in (the password is write-only: left
// empty, the stored one is kept for the same user). Its status says how the last email through
// it went; "Send a test email" asks the worker to send one to the Owner now, and the Email
// section reads the settings again while the test is under way (Email.tsx), so the outcome
// shows without a reload.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { EmailSettings } from "@/api/types";
import { useApi } from "@/app/providers";
import { Checkbox, ErrorMessage, fieldErrors, formText, formatTime, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { type SmtpForm, smtpRequest, smtpStatusLabel, testEmailLabel } from "@/lib/email";
import { useWorkspace } from "../WorkspaceContext";

type Smtp = NonNullable<EmailSettings["smtp"]>;

export function SmtpSettings({ smtp, hasAddress }: { smtp: Smtp | null | undefined; hasAddress: boolean }) {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const tlsHintId = useId();
  const serverErrorId = useId();
  const test = useMutation({
    mutationFn: () => unwrap(api.workspace.POST("/api/settings/email/test")),
    // The status is now "testing": read it again (and again while it stays so: Email.tsx).
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.email(workspace.id) }),
  });
  const save = useMutation({
    mutationFn: (form: SmtpForm | null) => unwrap(api.workspace.PUT("/api/settings/email", { body: smtpRequest(form) })),
    onSuccess: (data: EmailSettings) => {
      formRef.current?.reset(); // the password typed is not kept on the page
      test.reset();
      queryClient.setQueryData(keys.email(workspace.id), data);
    },
  });
  const errors = (field: string) => fieldErrors(save.error, `smtp.${field}`);
  const serverErrors = fieldErrors(save.error, "smtp");
  return (
    <form
      ref={formRef}
      aria-labelledby="smtp-heading"
      key={smtp ? `${smtp.host}:${smtp.port}:${smtp.tls}:${smtp.user ?? ""}` : "none"}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const password = form.get("password");
        save.mutate({
          host: formText(form, "host") ?? "",
          port: Number(formText(form, "port") ?? "587"),
          tls: form.get("tls") === "on",
          user: formText(form, "user"),
          // Not trimmed: spaces may belong to a password.
          password: typeof password === "string" && password !== "" ? password : null,
        });
      }}
    >
      <h3 id="smtp-heading">Outgoing mail (SMTP)</h3>
      <p className="hint">
        Replies to customers leave through the server set here, from your support address. Without one, they leave through Support Desk&apos;s
        mail server under the workspace&apos;s name.
      </p>
      {smtp ? (
        <div className="smtp-status">
          <p role={smtp.status === "failing" ? "alert" : "status"} className={smtp.status === "failing" ? "error" : undefined}>
            {smtpStatusLabel(smtp.status, smtp.lastError ?? null)}
          </p>
          {smtp.checkedAt ? (
            <p className="hint">
              Last checked <time dateTime={smtp.checkedAt}>{formatTime(smtp.checkedAt)}</time>.
            </p>
          ) : null}
        </div>
      ) : null}
      {!hasAddress ? <p className="notice">Set the support address above first: email through your server comes from it.</p> : null}
      <TextField label="SMTP server" name="host" autoComplete="off" defaultValue={smtp?.host ?? ""} placeholder="smtp.example.com" required errors={errors("host")} />
      <TextField
        label="Port"
        name="port"
        type="number"
        min={1}
        max={65535}
        defaultValue={String(smtp?.port ?? 587)}
        hint="Usually 587 (STARTTLS) or 465 (TLS)."
        required
        errors={errors("port")}
      />
      <Checkbox label="Require TLS" name="tls" defaultChecked={smtp?.tls ?? true} aria-describedby={tlsHintId} />
      <p className="hint checkbox-hint" id={tlsHintId}>
        TLS on port 465, STARTTLS on the others. Turn it off only for a server on your private network: mail and password could travel unencrypted.
      </p>
      <TextField
        label="User name"
        name="user"
        autoComplete="off"
        defaultValue={smtp?.user ?? ""}
        hint="Leave empty if the server takes mail without a login."
        errors={errors("user")}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        placeholder={smtp?.user ? "A password is stored" : undefined}
        hint={smtp?.user ? "A password is stored: leave empty to keep it. A new user name needs its password." : "The password of the user above."}
        errors={errors("password")}
      />
      {serverErrors.length ? (
        <p className="field-error" id={serverErrorId}>
          {serverErrors.join("; ")}
        </p>
      ) : null}
      <ErrorMessage error={save.error} />
      {save.isSuccess ? <StatusMessage>{save.data.smtp ? "SMTP server saved: send a test email to check it." : "SMTP server removed: replies leave through Support Desk's mail server."}</StatusMessage> : null}
      <div className="row">
        <SubmitButton pending={save.isPending} pendingText="Saving…" aria-describedby={serverErrors.length ? serverErrorId : undefined}>
          {smtp ? "Save SMTP server" : "Use this SMTP server"}
        </SubmitButton>
        {smtp ? (
          <button type="button" onClick={() => save.mutate(null)} disabled={save.isPending}>
            Stop using this server
          </button>
        ) : null}
        <button
          type="button"
          onClick={() => test.mutate()}
          disabled={test.isPending || smtp?.status === "testing"}
          aria-busy={test.isPending || undefined}
        >
          Send a test email
        </button>
      </div>
      <ErrorMessage error={test.error} />
      {test.isSuccess ? <StatusMessage>{testEmailLabel(test.data)}</StatusMessage> : null}
    </form>
  );
}
