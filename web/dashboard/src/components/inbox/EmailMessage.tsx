"use client";

// A message that came or went by email, in the thread: a compact header (From, To, Cc,
// Subject), a warning when the sender failed DMARC, the content, the quoted history behind a
// toggle, and for our replies whether the mail went out. HTML is shown only inside a sandboxed
// iframe (sandbox="": no scripts, an opaque origin) through `srcdoc`, under its own
// Content-Security-Policy (lib/email): the message's inline files load from the API, remote
// images only once the agent asks, for this message alone. Never as markup in this page.

import { fileUrl } from "@supportdesk/shared/attachments";
import { filesOrigin } from "@supportdesk/shared/csp";
import { useMemo, useState } from "react";
import type { Attachment, Message } from "@/api/types";
import { useConfig } from "@/app/providers";
import { MessageFiles } from "@/components/attachments/MessageFiles";
import { useFreshAttachments } from "@/components/attachments/useFreshAttachment";
import {
  attachmentLinks,
  deliveryLabel,
  DMARC_WARNING,
  type EmailDetails,
  emailSrcdoc,
  estimateFrameHeight,
  hasRemoteImages,
  inlineAttachmentIds,
  partiesLabel,
  partyLabel,
} from "@/lib/email";

const NO_FILES: Attachment[] = [];

export function EmailMessage({ workspaceId, conversationId, message, email }: { workspaceId: string; conversationId: string; message: Message; email: EmailDetails }) {
  const attachments = message.attachments ?? NO_FILES;
  const html = email.html ?? null;
  // Files shown inline in the HTML are not listed again under it.
  const inline = useMemo(() => (html ? inlineAttachmentIds(html) : new Set<string>()), [html]);
  const listed = useMemo(() => attachments.filter((a) => !inline.has(a.id)), [attachments, inline]);
  const inlineFiles = useMemo(() => attachments.filter((a) => inline.has(a.id)), [attachments, inline]);
  return (
    <div className="email-message">
      <EmailHeader email={email} />
      {email.dmarcFailed ? (
        <p className="email-warning">
          <strong>Warning:</strong> {DMARC_WARNING}
        </p>
      ) : null}
      {html ? (
        <EmailHtml workspaceId={workspaceId} conversationId={conversationId} html={html} files={inlineFiles} />
      ) : message.body ? (
        <p className="message-body">{message.body}</p>
      ) : null}
      {email.quoted ? (
        <details className="email-quoted">
          <summary>Show quoted text</summary>
          <pre>{email.quoted}</pre>
        </details>
      ) : null}
      <MessageFiles workspaceId={workspaceId} conversationId={conversationId} attachments={listed} />
      {message.kind === "outgoing" && email.delivery ? <DeliveryStatus delivery={email.delivery} /> : null}
    </div>
  );
}

function EmailHeader({ email }: { email: EmailDetails }) {
  return (
    <div className="email-header" role="group" aria-label="Email details">
      <dl>
        <dt>From</dt>
        <dd>{partyLabel(email.from)}</dd>
        {email.to.length ? (
          <>
            <dt>To</dt>
            <dd>{partiesLabel(email.to)}</dd>
          </>
        ) : null}
        {email.cc.length ? (
          <>
            <dt>Cc</dt>
            <dd>{partiesLabel(email.cc)}</dd>
          </>
        ) : null}
        <dt>Subject</dt>
        <dd>{email.subject || "(no subject)"}</dd>
      </dl>
    </div>
  );
}

function DeliveryStatus({ delivery }: { delivery: NonNullable<EmailDetails["delivery"]> }) {
  const failed = delivery.status === "failed";
  return (
    <p className={`delivery delivery-${delivery.status}`} role={failed ? "status" : undefined}>
      {deliveryLabel(delivery)}
    </p>
  );
}

/**
 * The email's HTML in its sandbox. The links of inline files expire (five minutes) and are kept
 * fresh like any file's; the document is built again only when a file gets its first link or
 * remote images are allowed, not each time links are renewed (that would reload the frame
 * under the agent's eyes): images already shown stay shown.
 */
function EmailHtml({ workspaceId, conversationId, html, files }: { workspaceId: string; conversationId: string; html: string; files: Attachment[] }) {
  const config = useConfig();
  const apiOrigin = filesOrigin(config);
  const fresh = useFreshAttachments(workspaceId, conversationId, files);
  const current = attachmentLinks(fresh, (link) => fileUrl(config.apiUrl, link));
  const [links, setLinks] = useState(current);
  // A file that had no link when the document was built has one now: build it again.
  if (Object.keys(current).some((id) => !links[id])) setLinks(current);
  const [remoteImages, setRemoteImages] = useState(false);
  const srcdoc = useMemo(() => emailSrcdoc(html, { apiOrigin, links, remoteImages }), [html, apiOrigin, links, remoteImages]);
  const remote = useMemo(() => hasRemoteImages(html), [html]);
  const height = useMemo(() => estimateFrameHeight(html), [html]);
  return (
    <div className="email-content">
      {remote && !remoteImages ? (
        <p className="email-remote">
          <span className="hint">Remote images are blocked: they can tell the sender you read this.</span>{" "}
          <button
            type="button"
            className="ghost"
            onClick={() => {
              setLinks(current);
              setRemoteImages(true);
            }}
          >
            Show remote images
          </button>
        </p>
      ) : null}
      <iframe title="Email content" sandbox="" srcDoc={srcdoc} referrerPolicy="no-referrer" className="email-frame" style={{ height }} />
    </div>
  );
}
