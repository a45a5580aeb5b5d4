// The email channel in a real browser (Debian's chromium through playwright-core), against the
// real API and hub and the dashboard. Run by the Rust suite (tests/api/email_browser.rs), which
// starts the API and the dashboard, delivers the customer's first email (Carla Diaz, "Printer
// on fire", text and HTML, to the support address with Dan Boss in Cc) to the workspace's
// forwarding address, and passes EMAIL_TEST_CONFIG:
//   { api, dashboard: "http://localhost:D",
//     agent: { email, password },   a verified Owner of the workspace, signing in through /login
//     workspaceName,                 the workspace to open in the picker
//     workspaceToken,                the Owner's workspace token, to read messages over the API
//     inbound: { url, secret, to },  POST /inbound/email as the MTA makes it, to the forwarding address
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium" (optional) }
// The journey: the agent signs in; the inbox marks the conversation "Email"; the conversation
// shows the email's header (From, Subject) and its HTML in a sandboxed frame (sandbox="");
// the reply box shows To and Cc filled with the thread's recipients (To Carla, Cc Dan: the
// support address left out); the agent attaches a PDF with the reply box's file input, adds an
// address to Cc (an IP address first: the API's refusal shows beside Cc) and replies: the
// request names `cc` alone (To untouched stays the API's choice), the API's copy of the reply
// has both addresses in `email.cc`, and the reply says "Sending…" (no mail worker runs in this
// test: delivery stays pending); To and Cc then follow the newest email received. The customer answers
// by email, threaded by In-Reply-To to the reply's Message-ID; the answer appears in the open
// conversation without a reload, through the hub, as an email (its header). After a reload the
// thread holds the three emails. In Settings -> Email the Owner sets an outgoing SMTP server:
// a bad host is refused beside its field, then the server is saved, its status reads
// "Untested", and the password field says a password is stored (the test email is not sent:
// no worker runs here). The conversation and the Settings' Email section are screenshotted at
// desktop and phone sizes and checked with axe (WCAG 2.1 A/AA); on the conversation, axe leaves
// out the email's sandboxed frame, where it cannot run.
// Each step prints `ok - ...`; a failed check that later steps do not depend on prints
// `not ok - ...` and the journey goes on, failing at its end; any other failure prints
// `not ok - ...` and exits 1 at once; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium } from "playwright-core";
import { assertNoViolations, DESKTOP, PHONE, visit, WCAG_TAGS, escapeRegExp, journey, signIn } from "./pages.mjs";

const cfg = JSON.parse(process.env.EMAIL_TEST_CONFIG ?? "null");
for (const key of ["api", "dashboard", "workspaceName", "workspaceToken", "screenshots"]) {
  if (!cfg?.[key] || !cfg?.agent?.email || !cfg?.agent?.password || !cfg?.inbound?.url || !cfg?.inbound?.secret || !cfg?.inbound?.to) {
    console.error(
      "not ok - EMAIL_TEST_CONFIG must hold {api, dashboard, agent: {email, password}, workspaceName, workspaceToken, inbound: {url, secret, to}, screenshots, chromium?}",
    );
    process.exit(2);
  }
}
const TIMEOUT = 20_000;
const run = Date.now().toString(36);
const dashboard = (path) => new URL(path, cfg.dashboard).toString();
const field = (page, label) => page.getByLabel(label, { exact: true });
const escape = escapeRegExp;

const progress = journey();
const { step, doing, check } = progress;

/** Screenshots at desktop and phone sizes, each checked with axe (pages.mjs). */
async function shot(page, name, fullPage = false) {
  await visit(page, cfg.screenshots, name, { fullPage, settle: () => page.waitForTimeout(250) });
}

/**
 * `visit` for a page that shows an email: the same screenshots at desktop and phone sizes, and
 * axe on the page with the email's own frame left out. axe cannot run inside a frame with
 * sandbox="" (no scripts may run there), and @axe-core/playwright waits for it forever; the
 * frame's content is the sender's HTML, not the dashboard's.
 */
const EMAIL_FRAME = 'iframe[title="Email content"]';
const emailPageViolations = [];
async function shotWithEmail(page, name) {
  const own = page.viewportSize();
  let seen = 0;
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ]) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(250);
    await page.screenshot({ path: join(cfg.screenshots, `${name}-${size}.png`) });
    const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).exclude(EMAIL_FRAME).analyze();
    for (const v of results.violations) {
      for (const n of v.nodes) {
        seen += 1;
        emailPageViolations.push(`  - ${name} (${size}): ${v.id} (${v.impact ?? "?"}): ${v.help}\n      at ${n.target.map(String).join(" >> ")}`);
      }
    }
  }
  if (own) await page.setViewportSize(own);
  console.log(`# ${name}: screenshots at desktop and phone sizes, ${seen} accessibility violation(s) outside the email's frame`);
}

/** A one-page PDF, unique to this run. */
function reportPdf() {
  return Buffer.from(
    [
      "%PDF-1.4",
      "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
      "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
      "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] >> endobj",
      `% fire safety ${run}`,
      "trailer << /Root 1 0 R >>",
      "%%EOF",
      "",
    ].join("\n"),
    "latin1",
  );
}

const PDF_NAME = `fire-safety-${run}.pdf`;
const PDF = reportPdf();

/** The API as the Owner's workspace token reads it. */
async function apiGet(path) {
  const response = await fetch(new URL(path, cfg.api), { headers: { Authorization: `Bearer ${cfg.workspaceToken}` } });
  const body = await response.text();
  assert.equal(response.status, 200, `GET ${path} answered ${response.status}: ${body}`);
  return JSON.parse(body);
}

/** `POST /inbound/email` as the MTA makes it: the raw message, to the forwarding address. */
async function deliver(raw) {
  const response = await fetch(cfg.inbound.url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${cfg.inbound.secret}`,
      "Content-Type": "message/rfc822",
      "X-Original-To": cfg.inbound.to,
    },
    body: raw.replace(/\r?\n/g, "\r\n"),
  });
  const body = await response.text();
  assert.equal(response.status, 200, `POST /inbound/email answered ${response.status}: ${body}`);
  return JSON.parse(body);
}

// ---- the pages ----------------------------------------------------------------------------------

/** Browser-side problems are printed as they happen; refusals by a CSP are kept to fail the run. */
const refusedByCsp = [];
function watch(page, label) {
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") console.log(`# ${label} console ${m.type()}: ${m.text()}`);
    if (/Content Security Policy/i.test(m.text())) refusedByCsp.push(`${label}: ${m.text()}`);
  });
  page.on("pageerror", (e) => console.log(`# ${label} page error: ${e.message}`));
}

/** Every text frame the page's hub connections receive. */
const hubFrames = [];
function recordHub(page) {
  page.on("websocket", (ws) => {
    if (!new URL(ws.url()).pathname.startsWith("/hubs/")) return;
    ws.on("framereceived", ({ payload }) => {
      if (typeof payload === "string") hubFrames.push(payload);
    });
  });
}

/** A request whose path ends with `suffix`, by method, answered from now on. */
function answered(page, method, suffix) {
  return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname.endsWith(suffix));
}

let browser;
let page;
let exitCode = 0;
try {
  mkdirSync(cfg.screenshots, { recursive: true });
  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(TIMEOUT);
  page = await context.newPage();
  watch(page, "agent");
  recordHub(page);

  doing("the agent signs in and opens the workspace");
  await signIn(page, cfg.dashboard, { email: cfg.agent.email, password: cfg.agent.password, workspaceName: cfg.workspaceName });
  await page.getByRole("status", { name: "Live updates: Live" }).waitFor();
  step("the agent signed in through /login and opened the workspace's inbox, live");

  doing("the inbox marks Carla's conversation as an email");
  await page.getByRole("tab", { name: "All" }).click();
  const row = page.getByRole("list", { name: "Conversations" }).getByRole("link").filter({ hasText: "Carla Diaz" });
  await row.waitFor();
  const rowMarker = row.locator('[data-channel="email"]');
  await rowMarker.waitFor();
  assert.equal((await rowMarker.textContent())?.trim(), "Channel: Email", "the row says its channel in words");
  assert.equal(await rowMarker.getAttribute("title"), "Email conversation");
  step('the inbox lists Carla Diaz\'s conversation with the "Email" channel marker');

  doing("the agent opens the email conversation");
  await row.click();
  await page.waitForURL(/\/inbox\/[^/]+$/);
  const conversationId = new URL(page.url()).pathname.split("/").pop();
  const heading = page.getByRole("heading", { name: /Carla Diaz/, level: 2 });
  await heading.waitFor();
  assert.match((await heading.textContent()) ?? "", /Printer on fire/, "the heading shows the subject");
  const headerMarker = page.locator(".conversation-header").locator('[data-channel="email"]');
  assert.equal((await headerMarker.textContent())?.trim(), "Channel: Email", "the conversation's header marks it Email");
  const thread = page.getByRole("log", { name: "Messages" });
  const details = thread.getByRole("group", { name: "Email details" }).first();
  await details.waitFor();
  const detailsText = (await details.textContent()) ?? "";
  assert.ok(detailsText.includes("Carla Diaz <carla@example.com>"), `From Carla in the header: ${detailsText}`);
  assert.ok(detailsText.includes("Printer on fire"), `the subject in the header: ${detailsText}`);
  await page.evaluate(() => {
    window.__sameDocument = true;
  });
  step(`the conversation opened; its "Email details" show From "Carla Diaz <carla@example.com>" and the subject "Printer on fire"`);

  doing("the email's HTML shows in its sandboxed frame");
  const frameElement = thread.locator('iframe[title="Email content"]').first();
  await frameElement.waitFor();
  assert.equal(await frameElement.getAttribute("sandbox"), "", 'the frame is sandboxed with sandbox=""');
  const frame = frameElement.contentFrame();
  await frame.getByText("third floor").waitFor();
  const bold = frame.locator("b");
  assert.equal((await bold.textContent())?.trim(), "third floor", "the HTML's markup is rendered, not escaped");
  const frameText = (await frame.locator("body").textContent()) ?? "";
  assert.match(frameText, /The printer on the third floor is smoking\./);
  assert.match(frameText, /What should we do\?/);
  step('the HTML renders in the iframe "Email content" (sandbox=""), with the email\'s words and markup');

  doing("the reply box shows To and Cc as the thread has them");
  const box = field(page, "Reply by email");
  await box.waitFor();
  const toField = field(page, "To");
  const ccField = field(page, "Cc");
  assert.equal(await toField.inputValue(), "carla@example.com", "To is the sender of the email received");
  assert.equal(await ccField.inputValue(), "dan@example.com", "Cc is the email's other recipients, without the support address");
  assert.match((await toField.getAttribute("aria-describedby")) ?? "", /\S/, "To is described by its hint");
  step('the reply box "Reply by email" shows To "carla@example.com" and Cc "dan@example.com" (the support address left out)');

  doing("the agent attaches a PDF with the reply box's file input");
  const uploaded = answered(page, "POST", `/api/conversations/${conversationId}/attachments`);
  await page.getByLabel("Attach files", { exact: true }).setInputFiles({ name: PDF_NAME, mimeType: "application/pdf", buffer: PDF });
  const upload = await uploaded;
  assert.equal(upload.status(), 201, `the upload answered ${upload.status()}: ${await upload.text()}`);
  const stored = await upload.json();
  assert.equal(stored.name, PDF_NAME);
  assert.equal(stored.contentType, "application/pdf");
  const chip = page.getByRole("list", { name: "Files to send" }).getByRole("listitem").filter({ hasText: PDF_NAME });
  await chip.getByRole("button", { name: `Remove ${PDF_NAME}` }).waitFor();
  step(`the PDF uploaded (201, ${stored.size} bytes) and shows as a chip`);

  doing("an address the API refuses in Cc is named beside the field");
  const replyText = `Please leave the floor and call the fire brigade. (${run})`;
  await box.fill(replyText);
  await ccField.fill("dan@example.com, ops@10.0.0.1");
  const refusedReply = answered(page, "POST", `/api/conversations/${conversationId}/messages`);
  await page.getByRole("button", { name: "Send reply" }).click();
  const refusal = await refusedReply;
  assert.equal(refusal.status(), 400, `an IP address in Cc is refused: ${refusal.status()}`);
  // The answer is in; the page shows its error a render later.
  await ccField.and(page.locator('[aria-describedby$="-error"], [aria-describedby*="-error "]')).waitFor({ timeout: 5_000 });
  const ccErrorId = ((await ccField.getAttribute("aria-describedby")) ?? "").split(" ").find((id) => id.endsWith("-error"));
  assert.ok(ccErrorId, "Cc is described by its error");
  const ccError = (await page.locator(`[id="${ccErrorId}"]`).textContent()) ?? "";
  assert.match(ccError, /ops@10\.0\.0\.1/, `the error names the address: ${ccError}`);
  assert.equal(await ccField.getAttribute("aria-invalid"), "true");
  assert.equal(await ccField.evaluate((el) => el === document.activeElement), true, "Cc has the focus");
  assert.equal(await box.inputValue(), replyText, "the reply is kept as typed");
  await shotWithEmail(page, "email-reply-cc-refused");
  step(`the API refused Cc "ops@10.0.0.1" (400); beside Cc: "${ccError}"`);

  doing("the agent adds an address to Cc and sends the reply by email");
  const added = `facilities-${run}@example.com`;
  await ccField.fill(`dan@example.com, ${added}`);
  assert.equal(await ccField.getAttribute("aria-invalid"), null, "the refusal went with the address");
  const sent = answered(page, "POST", `/api/conversations/${conversationId}/messages`);
  await page.getByRole("button", { name: "Send reply" }).click();
  const posted = await sent;
  assert.equal(posted.status(), 201, `the reply answered ${posted.status()}`);
  assert.deepEqual(posted.request().postDataJSON(), { body: replyText, attachmentIds: [stored.id], cc: ["dan@example.com", added] }, "Cc alone is sent: To was left as it was");
  const replyBubble = thread.locator(".bubble").filter({ hasText: replyText });
  await replyBubble.waitFor();
  await replyBubble.getByRole("link", { name: new RegExp(escape(PDF_NAME)) }).waitFor();
  assert.equal(await page.getByRole("list", { name: "Files to send" }).count(), 0, "the chip went with the reply");
  step(`the reply went with the PDF's id and Cc "dan@example.com, ${added}" (no To: the API's choice); the thread shows it with its PDF`);
  await check("after sending, To and Cc show the thread's recipients again", async () => {
    assert.equal(await toField.inputValue(), "carla@example.com");
    assert.equal(await ccField.inputValue(), "dan@example.com");
  });
  await check('the reply shows as an email, "Sending…" (no worker: delivery pending)', async () => {
    await replyBubble.getByRole("group", { name: "Email details" }).waitFor({ timeout: 10_000 });
    await replyBubble.getByText("Sending…", { exact: true }).waitFor({ timeout: 1_000 });
  });

  doing("the API holds the reply, pending, with its Message-ID's id");
  const { messages } = await apiGet(`/api/conversations/${conversationId}/messages`);
  const reply = messages.find((m) => m.kind === "outgoing" && m.body === replyText);
  assert.ok(reply, `the reply is among the conversation's messages: ${JSON.stringify(messages)}`);
  assert.equal(reply.id, (await posted.json()).id);
  assert.equal(reply.email?.delivery?.status, "pending");
  assert.deepEqual(
    reply.email?.to?.map((p) => p.address),
    ["carla@example.com"],
    `To is the thread's: ${JSON.stringify(reply.email)}`,
  );
  assert.deepEqual(reply.email?.cc?.map((p) => p.address), ["dan@example.com", added], `Cc holds the address the agent added: ${JSON.stringify(reply.email)}`);
  assert.equal(reply.email?.cc?.[0]?.name, "Dan Boss", "an address the thread knew keeps its name");
  const domain = cfg.inbound.to.split("@").pop();
  const ours = `${reply.id.replace(/-/g, "")}@${domain}`;
  step(`the reply ${reply.id} is pending delivery to carla@example.com, Cc dan@example.com and ${added}; its Message-ID is <${ours}>`);

  doing("Carla answers the reply by email");
  const answerText = `Thanks, the fire is out and everyone is safe. (${run})`;
  const receipt = await deliver(
    [
      "From: Carla Diaz <carla@example.com>",
      `To: ${reply.email?.from?.address ?? "support@acme.test"}`,
      `Subject: ${reply.email?.subject ?? "Re: Printer on fire"}`,
      "Message-ID: <c-2@example.com>",
      `In-Reply-To: <${ours}>`,
      `References: <c-1@example.com> <${ours}>`,
      "Date: Tue, 24 Nov 2026 10:30:00 +0000",
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "",
      answerText,
      "",
    ].join("\n"),
  );
  assert.equal(receipt.outcome, "added", JSON.stringify(receipt));
  assert.equal(receipt.conversationId, conversationId, "the answer joins the same conversation");
  assert.equal(receipt.opened, false, "no new conversation");
  step("the answer, In-Reply-To our Message-ID, was taken into the same conversation");

  doing("the answer appears live in the open conversation");
  await thread.getByText(answerText).waitFor();
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "the conversation was not reloaded");
  const pushed = hubFrames
    .flatMap((f) => f.split("\x1e"))
    .filter((f) => f.includes('"MessageCreated"') && f.includes(answerText))
    .map((f) => JSON.parse(f).arguments?.[0]?.message);
  assert.equal(pushed.length, 1, "the hub pushed the answer (a MessageCreated frame with its text)");
  assert.equal(pushed[0]?.email?.from?.address, "carla@example.com", `the hub's message carries its email details: ${JSON.stringify(pushed[0])}`);
  step("Carla's answer appeared in the open conversation without a reload, pushed by the hub (MessageCreated, with its email details)");
  await check("the live answer shows as an email (its Email details: From Carla)", async () => {
    const answerBubble = thread.locator(".bubble").filter({ hasText: answerText });
    const answerDetails = answerBubble.getByRole("group", { name: "Email details" });
    await answerDetails.waitFor({ timeout: 10_000 });
    assert.match((await answerDetails.textContent()) ?? "", /Carla Diaz <carla@example\.com>/);
  });
  await check("the reply box follows the newest email received: To Carla, no Cc (her answer had none)", async () => {
    assert.equal(await toField.inputValue(), "carla@example.com");
    assert.equal(await ccField.inputValue(), "");
  });

  doing("the email conversation, under axe");
  await shotWithEmail(page, "email-conversation");
  step("the email conversation: screenshots at both sizes, checked with axe");

  doing("after a reload, the conversation shows the reply and the answer as emails");
  await page.reload();
  await thread.getByText(answerText).waitFor();
  await thread.locator(".bubble").filter({ hasText: replyText }).getByText("Sending…", { exact: true }).waitFor();
  await thread.locator(".bubble").filter({ hasText: answerText }).getByRole("group", { name: "Email details" }).waitFor();
  assert.equal(await thread.getByRole("group", { name: "Email details" }).count(), 3, "three emails in the thread");
  step('after a reload: three emails, the reply "Sending…", the answer with its Email details');

  doing("the Settings' Email section");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  const section = page.getByRole("region", { name: "Email", exact: true });
  await section.waitFor();
  const forwarding = section.getByLabel("Forwarding address", { exact: true });
  await forwarding.waitFor();
  assert.equal(await forwarding.inputValue(), cfg.inbound.to);
  assert.equal(await forwarding.getAttribute("readonly"), "", "the forwarding address is read only");
  const support = section.getByLabel("Support address", { exact: true });
  assert.equal(await support.inputValue(), "support@acme.test");
  await section.scrollIntoViewIfNeeded();
  await shot(page, "settings-email");
  step(`the Settings' Email section shows the forwarding address ${cfg.inbound.to} and the support address support@acme.test`);

  doing("the Owner sets an outgoing SMTP server; a bad host is refused beside its field");
  const smtp = section.getByRole("form", { name: "Outgoing mail (SMTP)" });
  await smtp.waitFor();
  await smtp.getByText("Without one, they leave through Support Desk's mail server under the workspace's name.").waitFor();
  const host = smtp.getByLabel("SMTP server", { exact: true });
  const tls = smtp.getByLabel("Require TLS", { exact: true });
  const password = smtp.getByLabel("Password", { exact: true });
  assert.equal(await tls.isChecked(), true, "TLS is required by default");
  assert.equal(await smtp.getByLabel("Port", { exact: true }).inputValue(), "587");
  await host.fill("smtp acme.test");
  await smtp.getByLabel("User name", { exact: true }).fill("mailer@acme.test");
  await password.fill("app password 1");
  let saved = answered(page, "PUT", "/api/settings/email");
  await smtp.getByRole("button", { name: "Use this SMTP server" }).click();
  const refused = await saved;
  assert.equal(refused.status(), 400, `a host with a space is refused: ${refused.status()}`);
  await host.and(page.locator('[aria-describedby$="-error"], [aria-describedby*="-error "]')).waitFor({ timeout: 5_000 });
  const hostErrorId = ((await host.getAttribute("aria-describedby")) ?? "").split(" ").find((id) => id.endsWith("-error"));
  assert.ok(hostErrorId, "the host field is described by its error");
  assert.match((await page.locator(`[id="${hostErrorId}"]`).textContent()) ?? "", /host name or an IP address/);
  assert.equal(await host.getAttribute("aria-invalid"), "true");
  step('the host "smtp acme.test" was refused (400) with the API\'s words beside the field, tied to it');

  doing("the Owner saves the SMTP server and sees it untested");
  await host.fill("smtp.acme.test");
  saved = answered(page, "PUT", "/api/settings/email");
  await smtp.getByRole("button", { name: "Use this SMTP server" }).click();
  const accepted = await saved;
  assert.equal(accepted.status(), 200, `the server was saved: ${accepted.status()}`);
  assert.deepEqual(accepted.request().postDataJSON(), {
    smtp: { host: "smtp.acme.test", port: 587, tls: true, user: "mailer@acme.test", password: "app password 1" },
  });
  await smtp.getByText("SMTP server saved: send a test email to check it.").waitFor();
  await smtp.getByRole("status").filter({ hasText: /^Untested: / }).waitFor();
  await smtp.getByRole("button", { name: "Stop using this server" }).waitFor();
  await smtp.getByRole("button", { name: "Send a test email" }).waitFor();
  assert.equal(await password.inputValue(), "", "the password typed is not kept on the page");
  assert.equal(await password.getAttribute("placeholder"), "A password is stored");
  const settingsNow = await apiGet("/api/settings/email");
  assert.equal(settingsNow.smtp?.status, "untested", JSON.stringify(settingsNow.smtp));
  assert.equal(settingsNow.smtp?.host, "smtp.acme.test");
  assert.equal(settingsNow.smtp?.user, "mailer@acme.test");
  assert.equal(settingsNow.smtp?.password, undefined, "the password is never read back");
  await smtp.scrollIntoViewIfNeeded();
  await shot(page, "settings-smtp");
  step('the SMTP server smtp.acme.test:587 (TLS, mailer@acme.test) was saved; it reads "Untested", and the password field says one is stored');

  doing("no resource was refused by a Content-Security-Policy");
  assert.deepEqual(refusedByCsp, []);
  step("nothing was refused under the dashboard's and the email's Content-Security-Policies");

  doing("axe on every page shown");
  assertNoViolations();
  assert.deepEqual(emailPageViolations, [], `axe found WCAG 2.1 A/AA violation(s):\n${emailPageViolations.join("\n")}`);
  step("axe found no WCAG 2.1 A/AA violation on the email conversation and the Email settings");

  progress.allChecksPassed();
} catch (error) {
  exitCode = 1;
  await progress.stopped(error, page, cfg.screenshots);
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);
