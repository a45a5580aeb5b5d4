// Which cached inbox list a view reads. The key is the filter hub events are judged by
// (realtime/reducers `belongsTo`): a new or changed conversation is folded into every cached
// list it belongs to, so one agent's list and a day range stay as the server would answer them.

import type { InboxFilter } from "@/realtime/reducers";
import { type InboxView, listQuery } from "./inboxUrl";

/**
 * The key of the list a view reads: filters left unset are left out, so a view without any
 * reads the list it read before there were more.
 */
export function listKey(view: InboxView): InboxFilter {
  const query = listQuery(view);
  return {
    assignee: view.tab,
    status: view.status,
    ...(view.contact ? { contactId: view.contact } : {}),
    ...(view.label ? { labelId: view.label } : {}),
    ...(view.channel ? { channel: view.channel } : {}),
    ...(view.priority ? { priority: view.priority } : {}),
    ...(view.unread ? { unread: true } : {}),
    ...(view.agent ? { agentId: view.agent } : {}),
    ...(query.createdAfter ? { createdAfter: query.createdAfter } : {}),
    ...(query.createdBefore ? { createdBefore: query.createdBefore } : {}),
    ...(query.updatedAfter ? { updatedAfter: query.updatedAfter } : {}),
    ...(query.updatedBefore ? { updatedBefore: query.updatedBefore } : {}),
  };
}
