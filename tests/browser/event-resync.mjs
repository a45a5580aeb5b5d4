// The dashboard catching up through the workspace's event log, in a real browser (Debian's
// chromium through playwright-core), against the real API and hub. An agent signs in and keeps
// the inbox open; the test cuts the page's hub connection (the WebSocket closed, negotiate
// refused: Chromium's offline mode leaves open WebSockets alone), makes 20 changes through the
// REST API meanwhile (replies, notes, status, priority and assignment changes, new
// conversations), lets the network back, waits for the dashboard to reconnect, and asserts
// the inbox shows exactly what a fresh GET /api/conversations returns, without a page reload
// and after reading GET /api/events?after=... .
//
// Run by the Rust suite, which starts the API (with its worker if it likes) and the dashboard
// (web/dashboard as built, NEXT_PUBLIC_API_URL / NEXT_PUBLIC_SIGNALR_URL pointing at that API),
// and passes EVENT_RESYNC_TEST_CONFIG:
//   { api: "http://127.0.0.1:A", dashboard: "http://localhost:D",
//     agent: { email, password },        a verified account that belongs to the workspace
//     workspaceId: "uuid",               the workspace the agent works in (opened in the picker)
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium" (optional) }
// The dashboard's origin must be one the API answers CORS for (APP_URL or
// CORS_ALLOWED_ORIGINS). The agent signs in through /login; the script makes its REST changes
// with a workspace token of its own (POST /auth/login, POST /workspaces/{id}/select).
// The inbox is checked with axe (WCAG 2.1 A/AA) before, during and after the cut; any violation
// fails the run at its end. Each step prints `ok - ...`; the first failure prints `not ok - ...`
// and exits 1; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { assertNoViolations, checkAccessibility, signIn } from "./pages.mjs";

const cfg = JSON.parse(process.env.EVENT_RESYNC_TEST_CONFIG ?? "null");
if (!cfg?.api || !cfg?.dashboard || !cfg?.agent?.email || !cfg?.agent?.password || !cfg?.workspaceId || !cfg?.screenshots) {
  console.error(
    "not ok - EVENT_RESYNC_TEST_CONFIG must hold {api, dashboard, agent: {email, password}, workspaceId, screenshots, chromium?}",
  );
  process.exit(2);
}
const TIMEOUT = 20_000;
/** The hub's backoff reaches 10 s before the network comes back, 30 s at most after it. */
const RECONNECT_TIMEOUT = 60_000;
const CHANGES = 20;
const run = Date.now().toString(36);
const dashboard = (path) => new URL(path, cfg.dashboard).toString();

let currentStep = "starting";
function step(name) {
  console.log(`ok - ${name}`);
}
function doing(name) {
  currentStep = name;
}

/** A screenshot, and axe on the page as shown (pages.mjs); violations fail the run at its end. */
async function shot(page, name) {
  await page.screenshot({ path: join(cfg.screenshots, `${name}.png`), fullPage: true });
  await checkAccessibility(page, name);
}

// ---- the REST API, as the agent ----------------------------------------------------------------

let workspaceToken = null;

async function call(method, path, body, token = workspaceToken) {
  const response = await fetch(`${cfg.api}${path}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A workspace token of the script's own, and the workspace's name (the picker shows it). */
async function signInByRest() {
  const { token: userToken } = await call("POST", "/auth/login", { email: cfg.agent.email, password: cfg.agent.password }, null);
  const selected = await call("POST", `/workspaces/${cfg.workspaceId}/select`, undefined, userToken);
  workspaceToken = selected.token;
  return selected.workspace;
}

/** The inbox's All tab as the API has it now: what the dashboard should show. */
async function freshInbox() {
  const { conversations } = await call("GET", "/api/conversations?assignee=all&limit=50");
  // A row previews its last message ("You:" for a reply, "Note:" for a note) and shows its
  // contact, status, priority and assignee.
  const preview = (m) => {
    if (!m) return null;
    const body = m.body.replace(/\s+/g, " ").trim();
    return m.kind === "note" ? `Note: ${body}` : m.kind === "outgoing" ? `You: ${body}` : body;
  };
  return conversations.map((c) => ({
    id: c.id,
    number: `#${c.number}`,
    contact: c.contact.displayName,
    status: c.status,
    priority: c.priority ?? null,
    preview: preview(c.lastMessage) ?? c.subject ?? null,
    assigned: c.assigneeId ? "assigned" : "unassigned",
  }));
}

function newConversation(n) {
  return call("POST", "/api/conversations", {
    contact: { email: `resync-${run}-${n}@example.test`, name: `Resync ${n} ${run}` },
    subject: `Resync ${n} ${run}`,
    body: `First message of conversation ${n}`,
  });
}

// ---- the page ------------------------------------------------------------------------------

/** The inbox list as rendered: one entry per conversation, in order. */
function renderedInbox(page) {
  return page
    .getByRole("list", { name: "Conversations" })
    .locator(":scope > li > a")
    .evaluateAll((links) =>
      links.map((a) => {
        const badges = [...a.querySelectorAll(".row-meta .badge")];
        const status = badges.find((b) => [...b.classList].some((c) => c.startsWith("status-")));
        const priority = badges.find((b) => b !== status);
        const text = (selector) => a.querySelector(selector)?.textContent?.trim() ?? null;
        return {
          id: new URL(a.href).pathname.split("/").pop(),
          number: text(".number"),
          contact: text(".row-name"),
          status: status?.textContent?.trim().toLowerCase() ?? null,
          priority: priority?.textContent?.trim().toLowerCase() ?? null,
          preview: text(".preview"),
          assigned: text(".row-meta .muted") === "Unassigned" ? "unassigned" : "assigned",
        };
      }),
    );
}

/** Waits until the rendered inbox equals a fresh GET /api/conversations; the last of each on timeout. */
async function inboxMatches(page, timeout) {
  const deadline = Date.now() + timeout;
  let shown = [];
  let expected = [];
  while (Date.now() < deadline) {
    [shown, expected] = await Promise.all([renderedInbox(page), freshInbox()]);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return { shown, expected, equal: true };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { shown, expected, equal: false };
}

/** The dashboard's header says how the hub connection is. */
function hubState(page, text) {
  return page.getByRole("status", { name: `Live updates: ${text}` });
}

// ---- the journey --------------------------------------------------------------------------

let browser;
let exitCode = 0;
try {
  mkdirSync(cfg.screenshots, { recursive: true });

  doing("the agent's workspace token and three conversations to start with");
  const workspace = await signInByRest();
  const seeded = [];
  for (const n of [1, 2, 3]) seeded.push(await newConversation(n));
  step(`the agent works in ${workspace.name}, which has ${seeded.length} new conversations`);

  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  context.setDefaultTimeout(TIMEOUT);

  // The hub's WebSocket goes through the test, which can cut it; while cut, new connections
  // are refused and negotiate fails as it would offline.
  let cut = false;
  const sockets = new Set();
  await context.routeWebSocket(/\/hubs\/chat(\?|$)/, (ws) => {
    if (cut) {
      void ws.close({ code: 4001, reason: "offline (test)" });
      return;
    }
    const server = ws.connectToServer();
    const pair = { ws, server };
    sockets.add(pair);
    ws.onClose((code, reason) => {
      sockets.delete(pair);
      void server.close({ code, reason }).catch(() => {});
    });
    server.onClose((code, reason) => {
      sockets.delete(pair);
      void ws.close({ code, reason }).catch(() => {});
    });
  });
  const offline = (route) => route.abort("internetdisconnected");
  const negotiate = /\/hubs\/chat\/negotiate/;

  const page = await context.newPage();
  const requests = [];
  page.on("request", (r) => requests.push({ url: r.url(), at: Date.now() }));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") console.log(`# console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => console.log(`# page error: ${e.message}`));

  doing("the agent signs in and opens the inbox");
  await signIn(page, cfg.dashboard, { email: cfg.agent.email, password: cfg.agent.password, workspaceName: workspace.name });
  await hubState(page, "Live").waitFor();
  await page.getByRole("tab", { name: "All" }).click();
  const list = page.getByRole("list", { name: "Conversations" });
  for (const c of seeded) await list.getByRole("link").filter({ hasText: c.subject }).waitFor();
  await page.evaluate(() => {
    window.__sameDocument = true;
  });
  step("the agent signed in through /login, opened the workspace, and the inbox is live");

  doing("a change arrives live before the cut");
  const early = await newConversation(4);
  await list.getByRole("link").filter({ hasText: early.subject }).waitFor();
  assert.equal(sockets.size, 1, "one hub WebSocket, through the test");
  await shot(page, "resync-1-before");
  step("a conversation created through the API appeared live");

  doing("the hub connection is cut");
  cut = true;
  await context.route(negotiate, offline);
  for (const { ws, server } of [...sockets]) {
    await ws.close({ code: 4000, reason: "connection cut (test)" });
    await server.close({ code: 1001, reason: "connection cut (test)" }).catch(() => {});
  }
  await hubState(page, "Reconnecting…").waitFor();
  const cutAt = Date.now();
  step("the dashboard lost its hub connection and says it is reconnecting");

  doing(`${CHANGES} changes through the REST API while the dashboard is away`);
  const [c1, c2, c3] = seeded;
  const c4 = early;
  const reply = (c, text) => call("POST", `/api/conversations/${c.id}/messages`, { body: text });
  const note = (c, text) => call("POST", `/api/conversations/${c.id}/notes`, { body: text });
  const status = (c, value) => call("POST", `/api/conversations/${c.id}/status`, { status: value });
  const priority = (c, value) => call("POST", `/api/conversations/${c.id}/priority`, { priority: value });
  const assign = (c, assigneeId) => call("POST", `/api/conversations/${c.id}/assign`, { assigneeId });
  const { id: meId } = await call("GET", "/api/me/profile");
  let c5 = null;
  // Nothing changes a conversation after it is resolved (which a reply might reopen).
  const changes = [
    () => reply(c1, "Reply 1 while away"),
    () => status(c2, "pending"),
    () => reply(c3, "Reply 2 while away"),
    () => note(c1, "A note while away"),
    () => priority(c4, "high"),
    () => assign(c2, null),
    () => priority(c1, "urgent"),
    async () => {
      c5 = await newConversation(5); // a contact, a conversation and its first message
    },
    () => reply(c2, "Reply 3 while away"),
    () => status(c3, "pending"),
    () => reply(c4, "Reply 4 while away"),
    () => assign(c2, meId),
    () => status(c2, "open"),
    () => note(c3, "Another note while away"),
    () => reply(c5, "Reply 5 while away"),
    () => priority(c5, "low"),
    () => reply(c1, "Reply 6 while away"),
    () => status(c3, "open"),
    () => status(c1, "resolved"),
    () => status(c4, "resolved"),
  ];
  assert.equal(changes.length, CHANGES);
  for (const change of changes) await change();
  assert.equal(await hubState(page, "Reconnecting…").count(), 1, "still cut off while the changes were made");
  await shot(page, "resync-2-away");
  step(`${CHANGES} changes made through the API in ${Date.now() - cutAt} ms, the dashboard still cut off`);

  doing("the network comes back and the dashboard reconnects");
  cut = false;
  const backAt = Date.now();
  await context.unroute(negotiate, offline);
  await hubState(page, "Live").waitFor({ timeout: RECONNECT_TIMEOUT });
  step(`the dashboard reconnected ${((Date.now() - backAt) / 1000).toFixed(1)} s after the network came back`);

  doing("the inbox catches up to what the API holds");
  const result = await inboxMatches(page, TIMEOUT);
  if (!result.equal) {
    console.log(`# shown:    ${JSON.stringify(result.shown)}`);
    console.log(`# expected: ${JSON.stringify(result.expected)}`);
  }
  assert.ok(result.equal, "the inbox shows exactly what GET /api/conversations returns");
  const shownIds = new Set(result.shown.map((c) => c.id));
  assert.ok([c1, c2, c3, c4, c5].every((c) => shownIds.has(c.id)), "the five conversations of this test are there");
  await shot(page, "resync-3-after");
  step(`the inbox shows exactly what a fresh GET /api/conversations returns (${result.shown.length} conversations, in order)`);

  doing("it caught up through the event log, without a reload");
  const catchUps = requests.filter((r) => r.at >= backAt && /\/api\/events\?(.*&)?after=\d+/.test(r.url));
  for (const r of catchUps) console.log(`# catch-up: ${new URL(r.url).pathname}${new URL(r.url).search}`);
  assert.ok(catchUps.length >= 1, "GET /api/events?after=... after reconnecting");
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "the page was not reloaded");
  step(`the dashboard read the event log after reconnecting (${catchUps.length} page(s)), in the same document`);

  doing("axe on every page shown");
  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on the inbox before, during and after the cut");
} catch (error) {
  exitCode = 1;
  console.error(`not ok - ${currentStep}: ${error instanceof Error ? error.message : error}`);
  if (error instanceof Error && error.stack) console.error(error.stack.split("\n").slice(1, 4).join("\n"));
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);
