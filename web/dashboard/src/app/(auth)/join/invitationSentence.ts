// The sentence the join page leads with, from the invitation preview: who invited, to which
// workspace, as what. Names are other people's text, rendered by React as text.

import type { components } from "@/api/schema";
import { roleLabel } from "@/api/types";

export type InvitationPreview = components["schemas"]["InvitationPreview"];

export function invitationSentence(preview: Pick<InvitationPreview, "invitedBy" | "workspaceName" | "role">): string {
  const inviter = preview.invitedBy?.displayName.trim();
  const who = inviter ? `${inviter} invited you` : "You are invited";
  return `${who} to join ${preview.workspaceName} as ${roleLabel(preview.role)}`;
}
