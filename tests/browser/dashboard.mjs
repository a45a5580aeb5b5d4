// The agent dashboard end to end, in a real browser (Debian's chromium through playwright-core),
// against the real API, worker and hub, with the chat widget on a plain page of another origin.
// Run by the Rust suite, which starts the API, the worker (writing .eml files), the dashboard,
// the widget app and the host page, and passes DASHBOARD_TEST_CONFIG:
//   { api, dashboard: "http://localhost:D", widget: "http://localhost:W",
//     host: "http://127.0.0.1:H/" (a page that injects the widget loader with ?siteKey=),
//     mailDir: "/abs/dir", screenshots: "/abs/dir", chromium: "/usr/bin/chromium" }
// The journey: an Owner registers and verifies by the emailed link, creates a workspace, allows
// the host page's origin and reads the site key in the widget settings, and invites an agent;
// the agent joins by the emailed link in a second browser context; a visitor (third context)
// writes through the widget; the message appears live in the agent's inbox; the agent replies
// and the visitor sees it; each sees the other typing; the agent adds a private note (never
// shown to the visitor) and creates a ticket from the conversation; the Owner deactivates the
// agent, whose dashboard leaves the workspace. A keyboard-only Owner (no mouse) signs in, opens
// the conversation, replies and assigns it. A second visitor writes, the Owner resolves the
// conversation and the visitor rates it (all three over REST) while the Owner's dashboard shows
// it: the rating, its comment and its activity line arrive live; the Owner turns the Inbox
// setting that asks for ratings off (the API then refuses ratings) and on again, and sets
// business hours in Settings (Monday to Friday 09:00–17:00 in Europe/Berlin and a holiday; a
// closing time before its opening is caught beside its day first), checked over REST and then
// put back to open around the clock over REST. Every page
// visited (sign-in, register, workspace picker, verify-email, join, inbox, conversation, a rated
// conversation, tickets, a ticket, team, settings, profile, forgot and reset password) is
// screenshotted at desktop (1280x800) and phone (390x844) sizes into `screenshots` and checked
// with axe (WCAG 2.1 A/AA): any violation fails the run, all of them listed. The inbox's
// first-load JavaScript is printed as a `#` line. Each step prints `ok - ...`; the first failure
// prints `not ok - ...` and exits 1.

import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { assertNoViolations, checkAccessibility, DESKTOP, tabTo, violationReport, visit } from "./pages.mjs";

const cfg = JSON.parse(process.env.DASHBOARD_TEST_CONFIG ?? "null");
for (const key of ["api", "dashboard", "widget", "host", "mailDir", "screenshots"]) {
  if (!cfg?.[key]) {
    console.error(`not ok - DASHBOARD_TEST_CONFIG must hold {api, dashboard, widget, host, mailDir, screenshots, chromium?}; ${key} is missing`);
    process.exit(2);
  }
}
const TIMEOUT = 20_000;
const MAIL_TIMEOUT = 45_000;
const run = Date.now().toString(36);
const PASSWORD = "Corr3ctHorse9";
const owner = { name: `Olive Owner ${run}`, email: `owner-${run}@example.test` };
const agent = { name: `Agent Ada ${run}`, email: `agent-${run}@example.test` };
const workspace = { name: `E2E ${run}`, slug: `e2e-${run}` };
const hostOrigin = new URL(cfg.host).origin;
const dashboard = (path) => new URL(path, cfg.dashboard).toString();

let currentStep = "starting";
function step(name) {
  console.log(`ok - ${name}`);
}
function doing(name) {
  currentStep = name;
}

/**
 * Screenshots at desktop and phone sizes, each checked with axe (pages.mjs): the whole page, or
 * with `part` (a locator) the window scrolled to that part.
 */
async function shot(page, name, { part } = {}) {
  await visit(page, cfg.screenshots, name, {
    settle: async () => {
      await page.waitForTimeout(200);
      await part?.evaluate((element) => element.scrollIntoView({ block: "start" }));
    },
    fullPage: !part,
  });
}

// ---- email (.eml files written by the worker) -----------------------------------------------

function decodeQuotedPrintable(text) {
  const bytes = [];
  const soft = text.replace(/=\r?\n/g, "");
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i], "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Every text part of a MIME message, decoded (quoted-printable, base64, or as is). */
function mimeTexts(raw) {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const headers = head.replace(/\r?\n[ \t]+/g, " ");
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  if (/^content-type:\s*multipart\//im.test(headers) && boundary) {
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((part) => !part.startsWith("--"))
      .flatMap((part) => mimeTexts(part.replace(/^\r?\n/, "")));
  }
  const encoding = /^content-transfer-encoding:\s*([\w-]+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === "quoted-printable") return [decodeQuotedPrintable(body)];
  if (encoding === "base64") return [Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")];
  return [body];
}

function recipientOf(raw) {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, split < 0 ? raw.length : split).replace(/\r?\n[ \t]+/g, " ");
  return /^to:\s*(.*)$/im.exec(headers)?.[1] ?? "";
}

/**
 * The link to `path` (e.g. "/verify-email") in the newest .eml addressed to `to`, waiting for
 * the worker. Opened on the dashboard under test, whatever host APP_URL names.
 */
async function emailedLink(to, path) {
  const deadline = Date.now() + MAIL_TIMEOUT;
  const pattern = new RegExp(`https?://[^\\s"'<>]*${path.replace(/[/.]/g, "\\$&")}\\?token=[A-Za-z0-9_%.~-]+`);
  while (Date.now() < deadline) {
    let files = [];
    try {
      files = readdirSync(cfg.mailDir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".eml"))
        .map((f) => join(cfg.mailDir, f))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
    } catch {
      // the directory appears with the first email
    }
    for (const file of files) {
      const raw = readFileSync(file, "utf8");
      if (!recipientOf(raw).toLowerCase().includes(to.toLowerCase())) continue;
      for (const text of mimeTexts(raw)) {
        const match = pattern.exec(text.replace(/&amp;/g, "&"));
        if (match) {
          const link = new URL(match[0]);
          return dashboard(`${link.pathname}${link.search}`);
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no email to ${to} with a ${path} link in ${cfg.mailDir} within ${MAIL_TIMEOUT / 1000} s`);
}

// ---- the REST API ------------------------------------------------------------------------------

/**
 * `method path` on the API with `token` (a workspace or visitor token) and a JSON `body`, from
 * a page of `origin` when given (the widget's session route checks it). Returns the status and
 * the parsed body.
 */
async function api(method, path, { token, body, origin } = {}) {
  const response = await fetch(new URL(path, cfg.api), {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(origin ? { Origin: origin } : {}),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** As `api`, asserting a 2xx answer; its body. */
async function apiOk(method, path, options) {
  const { status, body } = await api(method, path, options);
  assert.ok(status >= 200 && status < 300, `${method} ${path}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** The workspace token of a dashboard tab's session (sessionStorage), as its API calls send it. */
function workspaceTokenOf(page) {
  return page.evaluate(() => JSON.parse(sessionStorage.getItem("supportdesk.dashboard.session") ?? "null")?.workspace?.token ?? null);
}

/** The business hours a workspace has until an Owner sets them: every day around the clock, in UTC. */
const ALWAYS_OPEN = {
  timeZone: "UTC",
  weekly: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((day) => ({ day, open: "00:00", close: "24:00" })),
  holidays: [],
};

/** The business-hours document's fields, without anything else the API may add. */
const hoursDocument = ({ timeZone, weekly, holidays }) => ({ timeZone, weekly, holidays });

/** Waits until `GET /api/settings` says the workspace asks for ratings, or not, as `asks`. */
async function untilAsksForRatings(token, asks) {
  const deadline = Date.now() + TIMEOUT;
  for (;;) {
    const settings = await apiOk("GET", "/api/settings", { token });
    if (settings.inbox.csatOnResolve === asks) return;
    assert.ok(Date.now() < deadline, `inbox.csatOnResolve is still ${settings.inbox.csatOnResolve}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// ---- browser helpers ----------------------------------------------------------------------

/** What the browser refused under the dashboard's Content-Security-Policy, on any page. */
const cspViolations = [];

/** Browser-side problems are printed as they happen: they explain most failures. */
function watch(page, label, urls) {
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    console.log(`# ${label} console ${m.type()}: ${m.text()}`);
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => console.log(`# ${label} page error: ${e.message}`));
  page.on("request", (r) => urls.push(r.url()));
  page.on("websocket", (ws) => urls.push(ws.url()));
}

async function newPage(browser, label, urls) {
  const context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(TIMEOUT);
  const page = await context.newPage();
  watch(page, label, urls);
  return page;
}

const field = (page, label) => page.getByLabel(label, { exact: true });

/** The dashboard's header says "Live" once the hub connection is up. */
async function live(page) {
  await page.getByRole("status", { name: "Live updates: Live" }).waitFor();
}

/** The first-load JavaScript of a dashboard page: its <script src> files, raw and gzipped. */
async function firstLoadJs(path) {
  const html = await (await fetch(dashboard(path))).text();
  const sources = [...new Set([...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]))];
  let raw = 0;
  let gzip = 0;
  for (const src of sources) {
    const body = Buffer.from(await (await fetch(new URL(src, cfg.dashboard))).arrayBuffer());
    raw += body.length;
    gzip += gzipSync(body).length;
  }
  return { scripts: sources.length, raw, gzip };
}

// ---- the journey --------------------------------------------------------------------------

const urls = [];
let browser;
let exitCode = 0;
try {
  mkdirSync(cfg.screenshots, { recursive: true });
  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const ownerPage = await newPage(browser, "owner", urls);
  const agentPage = await newPage(browser, "agent", urls);
  const visitorPage = await newPage(browser, "visitor", urls);

  doing("the Owner registers");
  const registerPage = await ownerPage.goto(dashboard("/register"));
  const policy = registerPage?.headers()["content-security-policy"] ?? "";
  assert.match(policy, /script-src 'self' 'nonce-[\w+/=]+' 'strict-dynamic'/, "scripts run by nonce");
  assert.match(policy, /frame-ancestors 'none'/, "no site may frame the dashboard");
  assert.equal(registerPage?.headers()["referrer-policy"], "no-referrer");
  await ownerPage.getByRole("heading", { name: "Create your account" }).waitFor();
  await field(ownerPage, "Full name").fill(owner.name);
  await field(ownerPage, "Email").fill(owner.email);
  await field(ownerPage, "Password").fill(PASSWORD);
  await shot(ownerPage, "register");
  await ownerPage.getByRole("button", { name: "Create account" }).click();
  await ownerPage.waitForURL(/\/workspaces$/);
  await ownerPage.getByRole("heading", { name: "Your workspaces" }).waitFor();
  await shot(ownerPage, "workspaces");
  step("the Owner registered through the form and landed on the workspace picker");

  doing("the Owner verifies the email address");
  const verifyLink = await emailedLink(owner.email, "/verify-email");
  await ownerPage.goto(verifyLink);
  await ownerPage.getByRole("heading", { name: "Email verified" }).waitFor();
  assert.ok(!new URL(ownerPage.url()).searchParams.has("token"), "the verification token stays out of the address bar");
  await shot(ownerPage, "verify-email");
  step("the verification link from the .eml verified the email");

  doing("the Owner creates a workspace");
  await ownerPage.getByRole("link", { name: "Continue to your workspaces" }).click();
  await ownerPage.getByRole("heading", { name: "Your workspaces" }).waitFor();
  await field(ownerPage, "Workspace name").fill(workspace.name);
  await field(ownerPage, "Slug").fill(workspace.slug);
  await ownerPage.getByRole("button", { name: "Create workspace" }).click();
  await ownerPage.waitForURL(/\/inbox$/);
  await ownerPage.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
  await live(ownerPage);
  step("the Owner created a workspace and its inbox is live");

  doing("the Owner allows the host page's origin and reads the site key");
  await ownerPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await ownerPage.getByRole("heading", { name: "Chat widget" }).waitFor();
  await field(ownerPage, "Allowed origins").fill(hostOrigin);
  await ownerPage.getByRole("button", { name: "Save allowed origins" }).click();
  await ownerPage.getByRole("status").filter({ hasText: "Allowed origins saved." }).waitFor();
  const siteKey = await field(ownerPage, "Site key").inputValue();
  assert.match(siteKey, /^swk_/, `the site key field shows a site key (got ${JSON.stringify(siteKey)})`);
  assert.equal(await field(ownerPage, "Allowed origins").inputValue(), hostOrigin);
  const snippet = await field(ownerPage, "Embed snippet").inputValue();
  assert.ok(snippet.includes(`data-site-key="${siteKey}"`), "the embed snippet carries the site key");
  await shot(ownerPage, "settings");
  step(`the widget settings allow ${hostOrigin} and show the site key and embed snippet`);

  doing("the Owner invites an agent");
  await ownerPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team" }).click();
  await ownerPage.getByRole("heading", { name: "Invite a teammate" }).waitFor();
  await field(ownerPage, "Email").fill(agent.email);
  await field(ownerPage, "Role").selectOption("agent");
  await ownerPage.getByRole("button", { name: "Send invitation" }).click();
  await ownerPage.getByRole("status").filter({ hasText: `Invitation sent to ${agent.email}` }).waitFor();
  await ownerPage.getByRole("table").getByRole("rowheader", { name: agent.email }).waitFor();
  step("the Owner invited an agent from Team; the invitation is pending");

  doing("the agent joins by the emailed link");
  const joinLink = await emailedLink(agent.email, "/join");
  await agentPage.goto(joinLink);
  // "Join a workspace" until the invitation's preview names it, then "Join <workspace>".
  await agentPage.getByRole("heading", { name: /^Join / }).first().waitFor();
  await shot(agentPage, "join");
  await field(agentPage, "Full name").fill(agent.name);
  await field(agentPage, "Password").fill(PASSWORD);
  await agentPage.getByRole("button", { name: "Join workspace" }).click();
  await agentPage.waitForURL(/\/inbox$/);
  await live(agentPage);
  step("the agent created an account from the invitation link (second context) and is in the inbox, live");

  doing("the agent's inbox is open before the visitor writes");
  await agentPage.getByRole("tab", { name: "All" }).click();
  await agentPage.getByText("No conversations here yet.").waitFor();
  await agentPage.evaluate(() => {
    window.__sameDocument = true;
  });

  doing("the visitor writes through the widget");
  const visitorText = `Hello from the visitor ${run}`;
  const host = new URL(cfg.host);
  host.searchParams.set("siteKey", siteKey);
  await visitorPage.goto(host.toString());
  await visitorPage.getByRole("button", { name: "Open chat" }).click();
  const chat = visitorPage.locator('iframe[title="Chat"]').contentFrame();
  await chat.getByRole("status").filter({ hasText: /^Connected$/ }).waitFor();
  await chat.getByRole("textbox", { name: "Message" }).fill(visitorText);
  await chat.getByRole("button", { name: "Send" }).click();
  await chat.getByRole("log").getByText(visitorText).waitFor();
  step("the visitor (third context) opened the widget on the host page and wrote");

  doing("the visitor's message appears live in the agent's inbox");
  const conversationLink = agentPage
    .getByRole("list", { name: "Conversations" })
    .getByRole("link")
    .filter({ hasText: visitorText });
  await conversationLink.waitFor();
  // The row's unread badge: "1", read out as "1 unread".
  const unreadBadge = conversationLink.locator(".unread-count");
  await unreadBadge.waitFor();
  assert.match((await unreadBadge.textContent()) ?? "", /^\d+ unread$/);
  assert.equal(await agentPage.evaluate(() => window.__sameDocument), true, "the inbox was not reloaded");
  await shot(agentPage, "inbox");
  step("the new conversation and its message appeared in the agent's inbox without a reload, marked unread");

  doing("the agent opens the conversation and replies");
  await conversationLink.click();
  await agentPage.waitForURL(/\/inbox\/[^/]+$/);
  const conversationPath = new URL(agentPage.url()).pathname;
  const messages = agentPage.getByRole("log", { name: "Messages" });
  await messages.getByText(visitorText).waitFor();
  const replyText = `Hi! An agent here, ${run}`;
  await field(agentPage, "Reply to the visitor").fill(replyText);
  await agentPage.getByRole("button", { name: "Send reply" }).click();
  await messages.getByText(replyText).waitFor();
  await shot(agentPage, "conversation");
  step("the agent opened the conversation and replied");

  doing("the visitor sees the reply");
  await chat.getByRole("log").getByText(replyText).waitFor();
  step("the visitor saw the agent's reply live");

  doing("typing indicators both ways");
  const visitorBox = chat.getByRole("textbox", { name: "Message" });
  await visitorBox.pressSequentially("still ther", { delay: 40 });
  await agentPage.getByRole("status").filter({ hasText: "The visitor is typing…" }).waitFor();
  const replyBox = field(agentPage, "Reply to the visitor");
  await replyBox.pressSequentially("One mo", { delay: 40 });
  await chat.getByText(/is typing…$/).waitFor();
  await visitorBox.fill("");
  await replyBox.fill("");
  step("the agent saw the visitor typing, and the visitor the agent");

  doing("the agent adds a private note");
  const noteText = `Private note ${run}`;
  await agentPage.getByRole("radio", { name: "Note" }).check();
  await field(agentPage, "Private note").fill(noteText);
  await agentPage.getByRole("button", { name: "Add note" }).click();
  await messages.getByRole("listitem").filter({ hasText: noteText }).getByText("Note", { exact: true }).waitFor();
  await agentPage.getByRole("radio", { name: "Reply" }).check();
  step("the note shows in the conversation, labelled Note");

  doing("the agent creates a ticket from the conversation");
  await agentPage.getByRole("button", { name: "Create ticket" }).click();
  const ticketDialog = agentPage.getByRole("dialog", { name: "Create ticket" });
  await ticketDialog.getByRole("button", { name: "Create ticket" }).click();
  await ticketDialog.getByText(/^Ticket #\d+ created/).waitFor();
  await ticketDialog.getByRole("button", { name: "Done" }).click();
  assert.equal(await chat.getByText(noteText).count(), 0, "the visitor never sees a note");
  step("a ticket was created from the conversation; the visitor never saw the note");

  doing("keyboard only: the Owner signs in, opens the conversation, replies and assigns it");
  const keys = await newPage(browser, "keyboard", urls);
  await keys.goto(dashboard("/login"));
  await keys.getByRole("heading", { name: "Sign in" }).waitFor();
  await shot(keys, "login");
  await tabTo(keys, field(keys, "Email"));
  await keys.keyboard.type(owner.email);
  await tabTo(keys, field(keys, "Password"));
  await keys.keyboard.type(PASSWORD);
  await keys.keyboard.press("Enter");
  await keys.waitForURL(/\/(workspaces|inbox)$/);
  if (new URL(keys.url()).pathname === "/workspaces") {
    await tabTo(keys, keys.getByRole("button", { name: `Open ${workspace.name}` }));
    await keys.keyboard.press("Enter");
    await keys.waitForURL(/\/inbox$/);
  }
  await live(keys);
  // The tabs are one Tab stop (the selected one); the arrow keys move between them.
  const allTab = keys.getByRole("tab", { name: "All" });
  await tabTo(keys, keys.getByRole("tab", { selected: true }));
  for (let i = 0; i < 4 && !(await allTab.evaluate((el) => el === document.activeElement)); i++) {
    await keys.keyboard.press("ArrowRight");
  }
  await keys.keyboard.press("Enter");
  await keys.locator('[role="tab"][aria-selected="true"]', { hasText: "All" }).waitFor();
  // The row's preview is the latest message by now: find the conversation by its address.
  const keyLink = keys.getByRole("list", { name: "Conversations" }).locator(`a[href$="${conversationPath}"]`);
  await tabTo(keys, keyLink);
  await keys.keyboard.press("Enter");
  await keys.waitForURL(/\/inbox\/[^/]+$/);
  const keyReply = `Typed without a mouse ${run}`;
  await tabTo(keys, field(keys, "Reply to the visitor"));
  await keys.keyboard.type(keyReply);
  await tabTo(keys, keys.getByRole("button", { name: "Send reply" }));
  await keys.keyboard.press("Enter");
  await keys.getByRole("log", { name: "Messages" }).getByText(keyReply).waitFor();
  await tabTo(keys, keys.getByRole("button", { name: "Assign to me" }));
  await keys.keyboard.press("Enter");
  await keys.getByRole("button", { name: "Assign to me" }).waitFor({ state: "detached" });
  const assignee = field(keys, "Assignee");
  assert.match(await assignee.evaluate((el) => el.selectedOptions[0]?.textContent ?? ""), /\(me\)$/, "assigned to the Owner");
  await chat.getByRole("log").getByText(keyReply).waitFor();
  await keys.context().close();
  step("keyboard only: the Owner signed in, opened the conversation, replied (the visitor saw it) and assigned it to themself");

  doing("a second visitor writes, over REST");
  const ownerToken = await workspaceTokenOf(ownerPage);
  assert.ok(ownerToken, "the Owner's tab holds a workspace token");
  const session = await apiOk("POST", "/widget/v1/sessions", { body: { siteKey }, origin: hostOrigin });
  const raterText = `Is my order on its way? ${run}`;
  const said = await apiOk("POST", "/widget/v1/messages", { token: session.token, body: { body: raterText } });
  const ratedId = said.conversationId;
  step("a second visitor started a session from the host page's origin and wrote (REST)");

  doing("the Owner opens the second visitor's conversation");
  await ownerPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Inbox" }).click();
  await ownerPage.getByRole("tab", { name: "All" }).click();
  await ownerPage.getByRole("list", { name: "Conversations" }).locator(`a[href$="/inbox/${ratedId}"]`).click();
  await ownerPage.waitForURL(new RegExp(`/inbox/${ratedId}$`));
  const ownerThread = ownerPage.getByRole("log", { name: "Messages" });
  await ownerThread.getByText(raterText).waitFor();
  await live(ownerPage);
  await ownerPage.evaluate(() => {
    window.__beforeRating = true;
  });
  assert.equal(await ownerPage.getByRole("list", { name: "Customer ratings" }).count(), 0, "no rating yet");

  doing("the Owner resolves the conversation (REST) and the visitor rates it (REST)");
  const resolved = await apiOk("POST", `/api/conversations/${ratedId}/status`, { token: ownerToken, body: { status: "resolved" } });
  assert.equal(resolved.status, "resolved");
  assert.ok(resolved.resolvedAt, "a resolved conversation says when");
  const ownerConversation = ownerPage.getByRole("article").filter({ has: ownerThread });
  await ownerPage.waitForFunction((select) => select.value === "resolved", await field(ownerConversation, "Status").elementHandle());
  const ratingComment = `Fast, thanks! ${run}`;
  const given = await apiOk("POST", "/widget/v1/conversation/rating", { token: session.token, body: { rating: 5, comment: ratingComment } });
  assert.equal(given.rating, 5);
  assert.equal(given.resolvedAt, resolved.resolvedAt, "the rating is of that resolution");
  step("the Owner resolved the conversation and the visitor rated it 5 with a comment (REST)");

  doing("the rating, its comment and its activity line appear live in the Owner's conversation");
  const ratingsList = ownerPage.getByRole("list", { name: "Customer ratings" });
  const shownRating = ratingsList.getByRole("listitem").filter({ hasText: "Rating: 5 of 5" });
  await shownRating.waitFor();
  assert.ok(((await shownRating.textContent()) ?? "").includes(ratingComment), "the rating shows its comment");
  await ownerThread.getByText(`The customer rated 5 of 5: “${ratingComment}”`).waitFor();
  assert.equal(await ownerPage.evaluate(() => window.__beforeRating), true, "the conversation was not reloaded");
  await shot(ownerPage, "conversation-rated");
  step("the Owner's open conversation showed \"Rating: 5 of 5\" with the comment, and the activity line, without a reload");

  doing("the Owner turns the ratings setting off and on");
  await ownerPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await ownerPage.getByRole("heading", { name: "Inbox", level: 2 }).waitFor();
  const asksForRatings = ownerPage.getByRole("checkbox", { name: "Ask customers to rate resolved conversations" });
  assert.equal(await asksForRatings.isChecked(), true, "workspaces ask for ratings by default");
  const hintId = (await asksForRatings.getAttribute("aria-describedby")) ?? "";
  assert.match(
    (await ownerPage.locator(`[id="${hintId}"]`).textContent()) ?? "",
    /asks the visitor for a rating from 1 to 5/,
    "the setting is described by its hint",
  );
  await asksForRatings.uncheck();
  await ownerPage.getByRole("button", { name: "Save inbox settings" }).click();
  await untilAsksForRatings(ownerToken, false);
  await ownerPage.getByRole("status").filter({ hasText: "Inbox settings saved." }).waitFor();
  assert.equal(await ownerPage.getByRole("checkbox", { name: "Ask customers to rate resolved conversations" }).isChecked(), false);
  const refused = await api("POST", "/widget/v1/conversation/rating", { token: session.token, body: { rating: 1 } });
  assert.equal(refused.status, 409, `a rating while the workspace does not ask: ${refused.status} ${JSON.stringify(refused.body)}`);
  assert.equal(refused.body?.code, "ratings_off");
  await ownerPage.getByRole("checkbox", { name: "Ask customers to rate resolved conversations" }).check();
  await ownerPage.getByRole("button", { name: "Save inbox settings" }).click();
  await untilAsksForRatings(ownerToken, true);
  step("the Owner turned \"Ask customers to rate resolved conversations\" off (ratings refused: ratings_off) and on again in Settings");

  doing("the Owner sets business hours: Monday to Friday 09:00–17:00 in Europe/Berlin, and a holiday");
  const hours = ownerPage.getByRole("region", { name: "Business hours" });
  const saveHours = hours.getByRole("button", { name: "Save business hours" });
  await saveHours.waitFor();
  assert.deepEqual(hoursDocument(await apiOk("GET", "/api/settings/business-hours", { token: ownerToken })), ALWAYS_OPEN, "open around the clock until set");
  assert.equal(await field(hours, "Time zone").inputValue(), "UTC");
  assert.equal(await hours.getByRole("checkbox", { name: "Open on Sunday" }).isChecked(), true);
  assert.equal(await field(hours, "Opens on Sunday").inputValue(), "00:00");
  assert.equal(await field(hours, "Closes on Sunday").inputValue(), "00:00", "a closing time of 24:00 shows as 00:00, midnight");
  await field(hours, "Time zone").selectOption("Europe/Berlin");
  for (const day of ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]) {
    await field(hours, `Opens on ${day}`).fill("09:00");
    await field(hours, `Closes on ${day}`).fill("17:00");
  }
  for (const day of ["Saturday", "Sunday"]) await hours.getByRole("checkbox", { name: `Open on ${day}` }).uncheck();
  assert.equal(await field(hours, "Opens on Sunday").count(), 0, "a closed day shows no times");
  await hours.getByRole("button", { name: "Add hours on Friday" }).click();
  const fridaySecond = field(hours, "Opens on Friday, opening 2");
  assert.equal(await fridaySecond.evaluate((input) => input === document.activeElement), true, "a new opening takes the focus");
  await hours.getByRole("button", { name: "Remove opening 2 on Friday" }).click();
  assert.equal(await fridaySecond.count(), 0, "the second opening is gone");
  // A closing time before the opening time is caught before the round trip, beside its day.
  await field(hours, "Closes on Monday").fill("08:00");
  await saveHours.click();
  await hours.getByRole("alert").filter({ hasText: "Fix the weekly hours marked above before saving." }).waitFor();
  const mondayCloses = field(hours, "Closes on Monday");
  const mondayProblem = hours.getByText(/^Monday: closes at 08:00, before it opens at 09:00\./);
  await mondayProblem.waitFor();
  assert.equal(await mondayCloses.getAttribute("aria-invalid"), "true");
  const describedBy = ((await mondayCloses.getAttribute("aria-describedby")) ?? "").split(" ");
  assert.ok(describedBy.includes(await mondayProblem.getAttribute("id")), "Monday's closing time is described by its problem");
  await checkAccessibility(ownerPage, "settings-business-hours-problem");
  await mondayCloses.fill("17:00");
  const holiday = `${new Date().getUTCFullYear() + 1}-12-25`;
  await field(hours, "Holiday").fill(holiday);
  await hours.getByRole("button", { name: "Add holiday" }).click();
  await hours.getByRole("button", { name: `Remove ${holiday}` }).waitFor();
  await saveHours.click();
  await hours.getByRole("status").filter({ hasText: "Business hours saved." }).waitFor();
  const officeHours = {
    timeZone: "Europe/Berlin",
    weekly: ["mon", "tue", "wed", "thu", "fri"].map((day) => ({ day, open: "09:00", close: "17:00" })),
    holidays: [holiday],
  };
  assert.deepEqual(hoursDocument(await apiOk("GET", "/api/settings/business-hours", { token: ownerToken })), officeHours);
  await shot(ownerPage, "settings-business-hours", { part: hours });
  step(`the Owner set Monday to Friday 09:00–17:00 in Europe/Berlin with ${holiday} as a holiday (a closing time before the opening was caught first); the API holds them`);

  doing("business hours back to open around the clock, over REST");
  assert.deepEqual(hoursDocument(await apiOk("PATCH", "/api/settings/business-hours", { token: ownerToken, body: ALWAYS_OPEN })), ALWAYS_OPEN);
  step("business hours are open around the clock in UTC again");

  doing("the Owner makes a canned response and a label in Settings and deletes them");
  // A deleted row takes its Delete button with it: the focus goes to the section's "New"
  // button rather than to the page's body.
  const makeAndDelete = async ({ section, make, fields, save, remove, confirm }) => {
    const region = ownerPage.getByRole("region", { name: section });
    await region.getByRole("button", { name: make }).click();
    const dialog = ownerPage.getByRole("dialog", { name: make });
    for (const [label, value] of Object.entries(fields)) await field(dialog, label).fill(value);
    await dialog.getByRole("button", { name: save }).click();
    const deleteButton = region.getByRole("button", { name: remove });
    await deleteButton.click();
    await ownerPage.getByRole("dialog", { name: confirm }).getByRole("button", { name: "Delete", exact: true }).click();
    await deleteButton.waitFor({ state: "detached" });
    const focused = await region.getByRole("button", { name: make }).evaluate((button) => button === document.activeElement);
    assert.equal(focused, true, `the focus is on ${make} after a delete`);
  };
  await makeAndDelete({
    section: "Canned responses",
    make: "New canned response",
    fields: { "Short code": "thanks", Title: "Thanks", Body: "Thank you for writing to us." },
    save: "Save canned response",
    remove: "Delete /thanks",
    confirm: "Delete /thanks?",
  });
  await makeAndDelete({
    section: "Labels",
    make: "New label",
    fields: { Name: "Refunds" },
    save: "Save label",
    remove: "Delete label Refunds",
    confirm: "Delete the label Refunds?",
  });
  step("the Owner made and deleted a canned response and a label; after each delete the focus was on the section's New button");

  doing("screenshots of the remaining pages");
  await ownerPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tickets" }).click();
  await ownerPage.getByRole("heading", { name: "Tickets", level: 1 }).waitFor();
  await shot(ownerPage, "tickets");
  // The ticket made from the conversation has its own page, with the conversation's contact
  // (a visitor with no email) as its requester.
  await ownerPage.getByRole("table").getByRole("link", { name: /^#\d+ / }).first().click();
  await ownerPage.waitForURL(/\/tickets\/[^/]+$/);
  await ownerPage.getByRole("heading", { name: /^Ticket #\d+: /, level: 1 }).waitFor();
  await shot(ownerPage, "ticket");
  await ownerPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Profile" }).click();
  await field(ownerPage, "Display name").waitFor();
  await shot(ownerPage, "profile");
  const anonymous = await newPage(browser, "anonymous", urls);
  await anonymous.goto(dashboard("/forgot-password"));
  await anonymous.getByRole("heading", { name: "Reset your password" }).waitFor();
  await shot(anonymous, "forgot-password");
  await anonymous.goto(dashboard("/reset-password"));
  await anonymous.getByRole("heading", { name: "Choose a new password" }).waitFor();
  await shot(anonymous, "reset-password");
  await anonymous.context().close();
  step("screenshots and axe: register, inbox, conversation, settings, tickets, a ticket, profile, forgot and reset password");

  doing("the Owner deactivates the agent");
  await ownerPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team" }).click();
  const members = ownerPage.getByRole("table").filter({ has: ownerPage.getByRole("columnheader", { name: "Presence" }) });
  const agentRow = members.getByRole("row").filter({ hasText: agent.email });
  await agentRow.getByText("online").waitFor();
  await shot(ownerPage, "team");
  await agentRow.getByRole("button", { name: /^Deactivate / }).click();
  const confirm = ownerPage.getByRole("dialog", { name: `Deactivate ${agent.name}?` });
  await confirm.getByRole("button", { name: "Deactivate", exact: true }).click();
  await ownerPage.getByRole("status").filter({ hasText: "was deactivated." }).waitFor();
  await agentRow.getByRole("button", { name: /^Reactivate / }).waitFor();
  step("the Owner deactivated the agent in Team, after confirming");

  doing("the agent's dashboard leaves the workspace");
  await agentPage.waitForURL(/\/workspaces$/);
  await agentPage.getByRole("status").filter({ hasText: /access to .* ended/ }).waitFor();
  const stored = await agentPage.evaluate(() => sessionStorage.getItem("supportdesk.dashboard.session"));
  assert.equal(JSON.parse(stored ?? "{}").workspace ?? null, null, "the workspace token was cleared");
  await shot(agentPage, "access-ended");
  step("the agent's page left the workspace and says access ended");

  doing("tokens never travel in URLs");
  const leaks = urls.filter((u) => /eyJ[\w-]+\.[\w-]+\./.test(u) || /access_token=/.test(u));
  assert.deepEqual(leaks, [], "no URL carries a JWT");
  step(`no URL among ${urls.length} requests carried a token`);

  doing("the dashboard's Content-Security-Policy refused nothing it needs");
  assert.deepEqual(cspViolations, [], "no CSP violation on any page");
  step("every page ran under a nonce-only script policy with no violation");

  const js = await firstLoadJs("/inbox");
  console.log(`# inbox first-load JS: ${js.scripts} scripts, ${(js.raw / 1024).toFixed(1)} kB (${(js.gzip / 1024).toFixed(1)} kB gzipped)`);

  doing("axe on every page visited");
  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on any page visited, at desktop or phone size");
  console.log(`# screenshots: ${cfg.screenshots}`);
} catch (error) {
  exitCode = 1;
  console.error(`not ok - ${currentStep}: ${error instanceof Error ? error.message : error}`);
  // What axe found before the failure, when the failure was something else.
  if (currentStep !== "axe on every page visited" && violationReport()) console.error(`# ${violationReport().replace(/\n/g, "\n# ")}`);
  if (error instanceof Error && error.stack) console.error(error.stack.split("\n").slice(1, 4).join("\n"));
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);
