"use client";

// Everyone sees the team (role, status, presence, kept live by PresenceChanged); Owners invite,
// deactivate, reactivate, change roles and revoke pending invitations.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import { type Agent, type Role, roleLabel } from "@/api/types";
import { useAgents } from "@/api/useAgents";
import { ConfirmDialog, ErrorMessage, fieldErrors, formatTime, formText, PresenceBadge, SelectField, StatusMessage, SubmitButton, TextField } from "@/components/ui";
import { useApi } from "@/app/providers";
import { useWorkspace } from "../WorkspaceContext";

export function Team() {
  const { workspace, isOwner } = useWorkspace();
  const agents = useAgents(workspace.id, "all", { fresh: true });
  return (
    <div className="page">
      <h1>Team</h1>
      {isOwner ? <InviteForm /> : <p className="muted">Owners invite and manage members.</p>}
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <ErrorMessage error={agents.error} />
        {agents.isPending ? <p role="status">Loading the team…</p> : null}
        {agents.data ? <MembersTable agents={agents.data.agents} /> : null}
      </section>
      {isOwner ? <Invitations /> : null}
    </div>
  );
}

function InviteForm() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const invite = useMutation({
    mutationFn: (body: { email: string; role: Role }) => unwrap(api.workspace.POST("/api/agents/invite", { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.invitations(workspace.id) }),
  });
  return (
    <section aria-labelledby="invite-heading" className="panel">
      <h2 id="invite-heading">Invite a teammate</h2>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const formElement = event.currentTarget;
          const form = new FormData(formElement);
          invite.mutate(
            { email: formText(form, "email") ?? "", role: (formText(form, "role") ?? "agent") as Role },
            { onSuccess: () => formElement.reset() },
          );
        }}
      >
        <TextField label="Email" name="email" type="email" required autoComplete="off" errors={fieldErrors(invite.error, "email")} />
        <SelectField label="Role" name="role" defaultValue="agent">
          <option value="agent">Agent</option>
          <option value="admin">Owner</option>
        </SelectField>
        <SubmitButton pending={invite.isPending} pendingText="Sending…">
          Send invitation
        </SubmitButton>
      </form>
      <ErrorMessage error={invite.error} />
      {invite.isSuccess ? <StatusMessage>Invitation sent to {invite.data.invitation.email}.</StatusMessage> : null}
    </section>
  );
}

function MembersTable({ agents }: { agents: Agent[] }) {
  const api = useApi();
  const { workspace, me, isOwner } = useWorkspace();
  const queryClient = useQueryClient();
  const [lastError, setLastError] = useState<unknown>(null);
  const [announcement, setAnnouncement] = useState<string | null>(null);
  const [deactivating, setDeactivating] = useState<Agent | null>(null);
  const done = (agent: Agent, what: string) => {
    setLastError(null);
    setAnnouncement(`${agent.displayName} ${what}.`);
    void queryClient.invalidateQueries({ queryKey: keys.allAgents(workspace.id) });
  };
  const path = (id: string) => ({ params: { path: { id } } });
  const deactivate = useMutation({
    mutationFn: (agent: Agent) => unwrap(api.workspace.POST("/api/agents/{id}/deactivate", path(agent.id))),
    onSuccess: (agent) => done(agent, "was deactivated"),
    onError: setLastError,
  });
  const reactivate = useMutation({
    mutationFn: (agent: Agent) => unwrap(api.workspace.POST("/api/agents/{id}/reactivate", path(agent.id))),
    onSuccess: (agent) => done(agent, "was reactivated"),
    onError: setLastError,
  });
  const changeRole = useMutation({
    mutationFn: ({ agent, role }: { agent: Agent; role: Role }) =>
      unwrap(api.workspace.PUT("/api/agents/{id}/role", { ...path(agent.id), body: { role } })),
    onSuccess: (agent) => done(agent, `is now ${roleLabel(agent.role)}`),
    onError: setLastError,
  });
  const busy = deactivate.isPending || reactivate.isPending || changeRole.isPending;
  return (
    <>
      <ErrorMessage error={lastError} />
      <StatusMessage>{announcement}</StatusMessage>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Presence</th>
            {isOwner ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => {
            const self = agent.id === me?.id;
            return (
              <tr key={agent.id} className={agent.status === "deactivated" ? "inactive" : undefined}>
                <th scope="row">
                  {agent.displayName}
                  {self ? <span className="muted"> (you)</span> : null}
                </th>
                <td>{agent.email}</td>
                <td>
                  {isOwner && agent.status === "active" ? (
                    <SelectField
                      label={`Role of ${agent.displayName}`}
                      hideLabel
                      value={agent.role}
                      disabled={busy}
                      onChange={(event) => changeRole.mutate({ agent, role: event.target.value as Role })}
                    >
                      <option value="agent">Agent</option>
                      <option value="admin">Owner</option>
                    </SelectField>
                  ) : (
                    roleLabel(agent.role)
                  )}
                </td>
                <td>{agent.status === "active" ? "Active" : "Deactivated"}</td>
                <td>
                  <PresenceBadge presence={agent.presence} />
                </td>
                {isOwner ? (
                  <td>
                    {agent.status === "active" ? (
                      <button type="button" className="danger" disabled={busy || self} onClick={() => setDeactivating(agent)} aria-label={`Deactivate ${agent.displayName}`}>
                        Deactivate
                      </button>
                    ) : (
                      <button type="button" disabled={busy} onClick={() => reactivate.mutate(agent)} aria-label={`Reactivate ${agent.displayName}`}>
                        Reactivate
                      </button>
                    )}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
      <ConfirmDialog
        open={deactivating !== null}
        title={`Deactivate ${deactivating?.displayName ?? ""}?`}
        action="Deactivate"
        pending={deactivate.isPending}
        onConfirm={() => deactivating && deactivate.mutate(deactivating, { onSettled: () => setDeactivating(null) })}
        onClose={() => setDeactivating(null)}
      >
        <p>Their dashboard leaves this workspace at once and they can no longer sign in to it. You can reactivate them later.</p>
      </ConfirmDialog>
    </>
  );
}

function Invitations() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const invitations = useQuery({
    queryKey: keys.invitations(workspace.id),
    queryFn: () => unwrap(api.workspace.GET("/api/invitations", { params: { query: { limit: 200 } } })),
    refetchOnMount: "always", // accepted invitations leave the list without a hub event
  });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.workspace.DELETE("/api/invitations/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.invitations(workspace.id) }),
  });
  const [revoking, setRevoking] = useState<{ id: string; email: string } | null>(null);
  const list = invitations.data?.invitations ?? [];
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      <ErrorMessage error={invitations.error ?? revoke.error} />
      {invitations.isSuccess && list.length === 0 ? <p className="muted">No pending invitations.</p> : null}
      {list.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((invitation) => (
              <tr key={invitation.id}>
                <th scope="row">{invitation.email}</th>
                <td>{roleLabel(invitation.role)}</td>
                <td>{invitation.status === "pending" ? "Pending" : "Expired"}</td>
                <td>{formatTime(invitation.expiresAt)}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => setRevoking(invitation)}
                    aria-label={`Revoke invitation for ${invitation.email}`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the invitation for ${revoking?.email ?? ""}?`}
        action="Revoke"
        pending={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}
        onClose={() => setRevoking(null)}
      >
        <p>The emailed link stops working. You can invite them again.</p>
      </ConfirmDialog>
    </section>
  );
}
