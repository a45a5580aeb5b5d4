// Names for the API's records, taken from the generated schema.
import type { components } from "./schema";

type Schemas = components["schemas"];

export type Agent = Schemas["Agent"];
export type AgentList = Schemas["AgentList"];
export type ApiKey = Schemas["ApiKey"];
export type Attachment = Schemas["Attachment"];
export type BusinessHours = Schemas["BusinessHours"];
export type CannedResponse = Schemas["CannedResponse"];
export type Channel = Schemas["Channel"];
export type Comment = Schemas["Comment"];
export type CommentList = Schemas["CommentList"];
export type Contact = Schemas["Contact"];
export type Conversation = Schemas["Conversation"];
export type ConversationList = Schemas["ConversationList"];
export type ConversationStatus = Schemas["ConversationStatus"];
export type EmailSettings = Schemas["EmailSettings"];
export type InboxFilters = Schemas["InboxFilters"];
export type Invitation = Schemas["Invitation"];
export type Label = Schemas["Label"];
export type LabelRef = Schemas["LabelRef"];
export type Membership = Schemas["MembershipSummary"];
export type Message = Schemas["Message"];
export type MessageList = Schemas["MessageList"];
export type Opening = Schemas["Opening"];
export type Priority = Schemas["Priority"];
export type Profile = Schemas["Profile"];
export type Rating = Schemas["Rating"];
export type Role = Schemas["Role"];
export type SavedView = Schemas["SavedView"];
export type SearchHit = Schemas["SearchHit"];
export type StorageUse = Schemas["StorageUse"];
export type Ticket = Schemas["Ticket"];
export type TicketList = Schemas["TicketList"];
export type TicketStatus = Schemas["TicketStatus"];
export type Webhook = Schemas["Webhook"];
export type WebhookWithSecret = Schemas["WebhookWithSecret"];
export type Weekday = Schemas["Weekday"];
export type WidgetSettings = Schemas["WidgetSettings"];

export const CONVERSATION_STATUSES: readonly ConversationStatus[] = ["open", "pending", "resolved"];
export const TICKET_STATUSES: readonly TicketStatus[] = ["open", "pending", "resolved", "closed"];
export const PRIORITIES: readonly Priority[] = ["low", "medium", "high", "urgent"];
export const CHANNELS: readonly Channel[] = ["chat", "email", "manual"];

/** How the API's role values read to people: `admin` is the Owner role. */
export function roleLabel(role: Role): string {
  return role === "admin" ? "Owner" : "Agent";
}
