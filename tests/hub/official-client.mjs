// The chat hub as the official SignalR client (@microsoft/signalr) sees it, against two real
// API replicas sharing PostgreSQL and Redis. Run by tests/api/hub_official_client.rs, which
// starts the replicas, creates the workspaces and passes them in HUB_TEST_CONFIG (JSON):
//   { a, b: replica base URLs,
//     owner: { token, shortToken, agentId }, agent: { token, agentId },
//     other: { token, agentId }, conversationId, otherConversationId }
// Each step prints a line; the first failed assertion exits non-zero with its message.

import assert from "node:assert/strict";
import * as signalR from "@microsoft/signalr";

const cfg = JSON.parse(process.env.HUB_TEST_CONFIG);
const EVENTS = ["MessageCreated", "ConversationCreated", "ConversationUpdated", "Typing", "PresenceChanged"];

function step(name) {
  console.log(`ok - ${name}`);
}

/** A connection through negotiate, the token in the `headers` option (never in the URL). */
function hub(base, headers) {
  const connection = new signalR.HubConnectionBuilder()
    .withUrl(`${base}/hubs/chat`, { headers, transport: signalR.HttpTransportType.WebSockets })
    .withAutomaticReconnect([0, 500, 1000, 2000])
    .configureLogging(signalR.LogLevel.Error)
    .build();
  const events = [];
  for (const name of EVENTS) {
    connection.on(name, (payload) => {
      events.push({ name, payload });
    });
  }
  return { connection, events };
}

async function until(what, predicate, ms = 10000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = predicate();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function eventOf(client, name, test = () => true) {
  return until(`${name}`, () => client.events.find((e) => e.name === name && test(e.payload))?.payload);
}

async function rest(method, path, token, body) {
  const response = await fetch(`${cfg.a}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const owner = hub(cfg.a, { Authorization: `Bearer ${cfg.owner.token}` });
const other = hub(cfg.a, { Authorization: `Bearer ${cfg.other.token}` });
// The agent's connection is on the other replica: everything it hears crossed Redis.
const agent = hub(cfg.b, { Authorization: `Bearer ${cfg.agent.token}` });
let agentReconnecting = false;
agent.connection.onreconnecting(() => {
  agentReconnecting = true;
});
let agentClosed;
agent.connection.onclose((error) => {
  agentClosed = error ?? new Error("closed without an error");
});

// A connection whose token expires soon (first, while it is still good): the server closes
// it with allowReconnect at expiry, and the client negotiates again with the token the app
// renewed meanwhile (checked below).
const shortHeaders = { Authorization: `Bearer ${cfg.owner.shortToken}` };
const expiring = hub(cfg.a, shortHeaders);
let reconnected = false;
let reconnectingError;
expiring.connection.onreconnecting((error) => {
  reconnectingError = error;
});
expiring.connection.onreconnected(() => {
  reconnected = true;
});
await expiring.connection.start();
shortHeaders.Authorization = `Bearer ${cfg.owner.token}`;
step("connected with a token about to expire");

await owner.connection.start();
await other.connection.start();
assert.equal(owner.connection.state, signalR.HubConnectionState.Connected);
step("connected through negotiate with the headers option");

await agent.connection.start();
const online = await eventOf(owner, "PresenceChanged", (p) => p.agentId === cfg.agent.agentId);
assert.deepEqual(online, { agentId: cfg.agent.agentId, presence: "online" });
step("PresenceChanged: an agent on the other replica came online");

assert.equal(await agent.connection.invoke("JoinConversation", cfg.conversationId), undefined, "a void method completes without a result");
assert.equal(await owner.connection.invoke("Typing", cfg.conversationId, true), undefined, "a void method completes without a result");
const typing = await eventOf(agent, "Typing");
assert.equal(typing.conversationId, cfg.conversationId);
assert.equal(typing.isTyping, true);
assert.equal(typing.by, "agent");
assert.equal(typing.agentId, cfg.owner.agentId);
step("JoinConversation and Typing");

const reply = await owner.connection.invoke("SendMessage", cfg.conversationId, "Hello from the hub");
assert.equal(reply.kind, "outgoing");
assert.equal(reply.body, "Hello from the hub");
const created = await eventOf(agent, "MessageCreated", (p) => p.message.id === reply.id);
assert.equal(created.conversationId, cfg.conversationId);
assert.equal(typeof created.message.author.displayName, "string");
step("SendMessage, and MessageCreated on the other replica");

const note = await owner.connection.invoke("SendNote", cfg.conversationId, "Only for the team");
assert.equal(note.kind, "note");
await eventOf(owner, "MessageCreated", (p) => p.message.id === note.id);
step("SendNote");

assert.equal(await agent.connection.invoke("LeaveConversation", cfg.conversationId), undefined, "a void method completes without a result");
await owner.connection.invoke("Typing", cfg.conversationId, false);
await new Promise((r) => setTimeout(r, 300));
assert.equal(agent.events.filter((e) => e.name === "Typing").length, 1, "no typing after leaving");
step("LeaveConversation");

await assert.rejects(
  owner.connection.invoke("SendMessage", cfg.otherConversationId, "Not yours"),
  (error) => error.message === "conversation not found",
);
await assert.rejects(
  owner.connection.invoke("SendMessage", cfg.conversationId, "   "),
  (error) => error.message.startsWith("body"),
);
await assert.rejects(owner.connection.invoke("Unknown"), /Unknown hub method 'Unknown'/);
step("hub errors reach the caller as readable messages");

const started = await rest("POST", "/api/conversations", cfg.owner.token, {
  contact: { email: "hana@example.org", name: "Hana" },
  body: "Started over REST",
});
const announced = await eventOf(agent, "ConversationCreated", (p) => p.id === started.id);
assert.equal(announced.contact.email, "hana@example.org");
await rest("POST", `/api/conversations/${started.id}/status`, cfg.owner.token, { status: "pending" });
const updated = await eventOf(owner, "ConversationUpdated", (p) => p.id === started.id);
assert.equal(updated.status, "pending");
step("ConversationCreated and ConversationUpdated from REST writes");

await until("a reconnect after the token expired", () => reconnected, 20000);
assert.match(String(reconnectingError), /expired/);
assert.equal(await expiring.connection.invoke("JoinConversation", cfg.conversationId), undefined, "a void method completes without a result");
step("automatic reconnect after a server-initiated close (token expiry)");


// Deactivation closes the agent's live connection on the other replica, for good.
await rest("POST", `/api/agents/${cfg.agent.agentId}/deactivate`, cfg.owner.token, {});
await until("the deactivated agent's connection to close", () => agentClosed, 5000);
assert.match(agentClosed.message, /deactivated/);
assert.equal(agentReconnecting, false, "no reconnect after deactivation");
assert.equal(agent.connection.state, signalR.HubConnectionState.Disconnected);
step("deactivation closes a live connection without reconnecting");

const leaked = other.events.filter(
  (e) => !(e.name === "PresenceChanged" && e.payload.agentId === cfg.other.agentId),
);
assert.deepEqual(leaked, [], "the other workspace heard nothing of this one");
step("no event crossed workspaces");

await Promise.all([owner.connection.stop(), other.connection.stop(), expiring.connection.stop()]);
console.log("all passed");
