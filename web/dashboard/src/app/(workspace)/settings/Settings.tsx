"use client";

// Owners only (the API answers 403 to agents, and its `detail` is shown): branding, the inbox,
// business hours, the email channel, the chat widget, API keys, webhooks, canned responses, labels, the files' storage use, and deleting the workspace.

import { useWorkspace } from "../WorkspaceContext";
import { ApiKeys } from "./ApiKeys";
import { AuditLog } from "./AuditLog";
import { Branding } from "./Branding";
import { BusinessHoursSettings } from "./BusinessHours";
import { CannedResponses } from "./CannedResponses";
import { DeleteWorkspace } from "./DeleteWorkspace";
import { EmailChannel } from "./Email";
import { InboxSettings } from "./Inbox";
import { Labels } from "./Labels";
import { SearchLanguageSettings } from "./SearchLanguage";
import { Storage } from "./Storage";
import { Webhooks } from "./Webhooks";
import { Widget } from "./Widget";

export function Settings() {
  const { isOwner } = useWorkspace();
  return (
    <div className="page">
      <h1>Settings</h1>
      {!isOwner ? <p role="alert">Only Owners can change workspace settings.</p> : <OwnerSettings />}
    </div>
  );
}

function OwnerSettings() {
  return (
    <>
      <nav aria-label="Settings sections" className="toc">
        <a href="#branding-heading">Branding</a> <a href="#inbox-settings-heading">Inbox</a> <a href="#business-hours-heading">Business hours</a>{" "}
        <a href="#email-heading">Email</a> <a href="#widget-heading">Chat widget</a> <a href="#api-keys-heading">API keys</a>{" "}
        <a href="#webhooks-heading">Webhooks</a> <a href="#canned-heading">Canned responses</a> <a href="#labels-heading">Labels</a> <a href="#search-settings-heading">Search</a>{" "}
        <a href="#storage-heading">Files</a>{" "}
        <a href="#audit-heading">Audit log</a> <a href="#danger-heading">Delete workspace</a>
      </nav>
      <Branding />
      <InboxSettings />
      <BusinessHoursSettings />
      <EmailChannel />
      <Widget />
      <ApiKeys />
      <Webhooks />
      <CannedResponses />
      <Labels />
      <SearchLanguageSettings />
      <Storage />
      <AuditLog />
      <DeleteWorkspace />
    </>
  );
}
