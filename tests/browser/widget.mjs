// The chat widget as a visitor meets it, in a real browser (Debian's chromium through
// playwright-core), against the real API and hub; an agent answers through the official
// @microsoft/signalr client. Run by the Rust suite, which starts the API, the widget app and a
// plain HTML page on another origin with the loader's <script> tag, and passes WIDGET_TEST_CONFIG:
//   { api, widget, host, refusedHost, agent: {token}, identity: {externalId, email, name, hash},
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium", greeting?: "expected text" }
// `refusedHost` is the same page on an origin the workspace does not allow. Each page is
// screenshotted at desktop (1280x800) and phone (390x844) sizes and checked with axe (WCAG 2.1
// A/AA; the script fails on any violation, listing them all). Each step prints `ok - ...`; one
// line `latency_ms=N` gives visitor send -> agent receives plus agent reply -> visitor sees it.
// The first failure prints `not ok - ...` and exits 1.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import * as signalR from "@microsoft/signalr";
import { chromium } from "playwright-core";
import { assertNoViolations, checkAccessibility, DESKTOP, PHONE, visit } from "./pages.mjs";

const cfg = JSON.parse(process.env.WIDGET_TEST_CONFIG ?? "null");
if (!cfg?.api || !cfg?.host || !cfg?.refusedHost || !cfg?.agent?.token || !cfg?.identity || !cfg?.screenshots) {
  console.error("not ok - WIDGET_TEST_CONFIG must hold {api, widget, host, refusedHost, agent: {token}, identity, screenshots}");
  process.exit(2);
}
const TIMEOUT = 15_000;
const TYPING = /is typing…$/;

function step(name) {
  console.log(`ok - ${name}`);
}

function shot(name) {
  return join(cfg.screenshots, name);
}

/** The agent: the official client, workspace token in `headers` (never in a URL). */
function agentHub() {
  const connection = new signalR.HubConnectionBuilder()
    .withUrl(`${cfg.api}/hubs/chat`, {
      headers: { Authorization: `Bearer ${cfg.agent.token}` },
      transport: signalR.HttpTransportType.WebSockets,
    })
    .configureLogging(signalR.LogLevel.Error)
    .build();
  const events = [];
  const waiters = [];
  // Said in the output, so that a missed event can be told from a lost connection.
  connection.onclose((error) => console.log(`# the agent's hub connection closed${error ? `: ${error.message}` : ""}`));
  connection.on("MessageCreated", (payload) => {
    events.push(payload);
    for (const w of [...waiters]) {
      if (w.test(payload)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve({ payload, at: performance.now() });
      }
    }
  });
  /** The first MessageCreated (already heard or to come) passing `test`, and when it came. */
  function messageCreated(what, test) {
    const seen = events.find(test);
    if (seen) return Promise.resolve({ payload: seen, at: performance.now() });
    return new Promise((resolve, reject) => {
      const waiter = { test, resolve };
      waiters.push(waiter);
      setTimeout(() => {
        if (waiters.includes(waiter)) {
          const heard = events.map((p) => JSON.stringify(p.message?.body)).join(", ") || "none";
          reject(new Error(`the agent never received MessageCreated for ${what} (hub connection ${connection.state}; heard: ${heard})`));
        }
      }, TIMEOUT);
    });
  }
  return { connection, messageCreated };
}

async function rest(method, path, body) {
  const response = await fetch(`${cfg.api}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${cfg.agent.token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A visitor-route request the chat makes (`PUT /widget/v1/context`...), awaited from now. */
function widgetRequest(page, method, path, test = () => true) {
  return page.waitForRequest((r) => r.method() === method && new URL(r.url()).pathname === path && test(r));
}

/** Lets the loader lay out for a new window size (it listens to `resize`). */
const settle = (page) => () => page.waitForTimeout(150);

/** Browser-side problems are printed as they happen: they explain most failures. */
function watch(page, label, urls) {
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") console.log(`# ${label} console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => console.log(`# ${label} page error: ${e.message}`));
  page.on("request", (r) => urls.push(r.url()));
  page.on("websocket", (ws) => urls.push(ws.url()));
}

/** The launcher's iframe, as a frame to query inside. */
function chatFrame(page) {
  return page.locator('iframe[title="Chat"]').contentFrame();
}

async function openChat(page) {
  await page.getByRole("button", { name: "Open chat" }).click();
  const close = page.getByRole("button", { name: "Close chat" });
  // On a phone the open chat covers the screen and the launcher hides; check it only on desktop.
  if ((page.viewportSize()?.width ?? 1000) > 480) {
    assert.equal(await close.getAttribute("aria-expanded"), "true");
  }
  const chat = chatFrame(page);
  const greeting = chat.getByTestId("greeting");
  await greeting.waitFor();
  if (cfg.greeting) assert.equal((await greeting.textContent())?.trim(), cfg.greeting);
  await chat.getByRole("status").filter({ hasText: /^Connected$/ }).waitFor();
  return chat;
}

/** Own property names of a page's window, less frame indices ("0" for an iframe). */
async function windowNames(page) {
  const names = await page.evaluate(() => Object.getOwnPropertyNames(window));
  return names.filter((n) => !/^\d+$/.test(n));
}

/** The chat iframe as a Playwright Frame, to evaluate script in. */
async function chatWindow(page) {
  return (await page.locator('iframe[title="Chat"]').elementHandle()).contentFrame();
}

async function send(chat, text, how = "click") {
  const box = chat.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  const at = performance.now();
  if (how === "enter") await box.press("Enter");
  else await chat.getByRole("button", { name: "Send" }).click();
  return at;
}

const agent = agentHub();
const urls = [];
let browser;
try {
  mkdirSync(cfg.screenshots, { recursive: true });
  await agent.connection.start();
  step("the agent is connected to the hub");

  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const desktop = await browser.newContext({ viewport: DESKTOP });
  desktop.setDefaultTimeout(TIMEOUT);
  const page = await desktop.newPage();
  watch(page, "desktop", urls);

  await page.goto(cfg.host);
  const launcher = page.getByRole("button", { name: "Open chat" });
  await launcher.waitFor();
  assert.equal(await launcher.getAttribute("aria-expanded"), "false");
  assert.equal(await page.evaluate(() => typeof window.SupportDesk?.identify), "function");
  step("the loader added the launcher and window.SupportDesk to the host page");

  // A blank page on the host's origin (served by the browser itself) is the baseline.
  const blank = await desktop.newPage();
  const blankUrl = new URL("/__blank", cfg.host).href;
  await blank.route(blankUrl, (route) =>
    route.fulfill({ contentType: "text/html", body: "<!doctype html><title>blank</title>" }),
  );
  await blank.goto(blankUrl);
  const baseline = new Set(await windowNames(blank));
  await blank.close();
  const added = (await windowNames(page)).filter((n) => !baseline.has(n));
  assert.deepEqual(added, ["SupportDesk"], "the loader adds one global to the host page");
  step("exactly one new global on the host page: SupportDesk");

  // After the globals check: axe adds globals of its own to the page it checks.
  await visit(page, cfg.screenshots, "1-widget-closed", { fullPage: false, settle: settle(page) });
  step("the closed widget: screenshots at both sizes, checked with axe");

  const contextSent = widgetRequest(page, "PUT", "/widget/v1/context");
  let chat = await openChat(page);
  await visit(page, cfg.screenshots, "2-widget-open", { fullPage: false, settle: settle(page) });
  step("the chat opened with the greeting, connected live (screenshots and axe, open)");

  const context = (await contextSent).postDataJSON();
  assert.equal(context.pageUrl, cfg.host, "the context names the host page, which the iframe cannot read itself");
  assert.equal(context.pageTitle, "Acme Shop");
  assert.equal(typeof context.timeZone, "string");
  assert.equal(typeof context.locale, "string");
  step("at session start the chat sent PUT /widget/v1/context with the host page's address and title");

  // Business hours: with no weekly hours at all the team is always away. The chat says so on top
  // of the conversation and asks for an email address; always open again, the notice is gone.
  const AWAY = "We're away right now. Leave your email and we'll reply by email.";
  const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
  const alwaysOpen = { timeZone: "UTC", weekly: DAYS.map((day) => ({ day, open: "00:00", close: "24:00" })), holidays: [] };
  /** The next answer to `GET /widget/v1/availability` the chat gets, as JSON. */
  const availabilityRead = () =>
    page
      .waitForResponse((r) => r.request().method() === "GET" && new URL(r.url()).pathname === "/widget/v1/availability")
      .then((r) => r.json());
  await rest("PATCH", "/api/settings/business-hours", { timeZone: "UTC", weekly: [], holidays: [] });
  let availability = availabilityRead();
  await page.reload();
  chat = await openChat(page);
  assert.deepEqual(await availability, { open: false, changesAt: null, typicalReplySeconds: null }, "no hours at all: closed, and it never changes");
  const awayNotice = chat.getByRole("status").filter({ hasText: AWAY });
  await awayNotice.waitFor();
  assert.equal(
    await awayNotice.evaluate((el) => el.closest(".body")?.firstElementChild?.contains(el)),
    true,
    "the notice is on top of the conversation",
  );
  const awayForm = chat.getByRole("form", { name: AWAY });
  const awayEmail = awayForm.getByRole("textbox", { name: "Email" });
  await awayEmail.waitFor();
  assert.equal(await chat.getByRole("textbox", { name: "Email" }).count(), 1, "one email form, the notice's");
  await checkAccessibility(page, "widget-away");
  await page.screenshot({ path: shot("widget-away-desktop.png") });
  const awayAddress = `away-${Date.now()}@example.org`;
  await awayEmail.fill(awayAddress);
  await awayForm.getByRole("button", { name: "Submit" }).click();
  const awaySaved = chat.getByRole("status").filter({ hasText: `We're away right now. We'll reply to ${awayAddress}.` });
  await awaySaved.waitFor();
  await awayForm.waitFor({ state: "hidden" });
  assert.equal(await awaySaved.evaluate((el) => el === document.activeElement), true, "the notice takes the focus from the form");
  step("outside business hours the chat opens with \"We're away right now\" and the email form on top (axe too); the address left, it says it will reply there");

  await rest("PATCH", "/api/settings/business-hours", alwaysOpen);
  availability = availabilityRead();
  await page.reload();
  chat = await openChat(page);
  assert.deepEqual(await availability, { open: true, changesAt: null, typicalReplySeconds: null }, "open around the clock, for good (and too few answers to tell the usual reply)");
  assert.equal(await chat.getByText(/We're away right now/).count(), 0, "no away notice within business hours");
  assert.equal(await chat.getByRole("textbox", { name: "Email" }).count(), 0, "nor its email form, with an agent online");
  step("back within business hours (always open), the chat shows no away notice");

  const text = `Hello from the widget test ${Date.now()}`;
  const sentAt = await send(chat, text);
  const received = await agent.messageCreated("the visitor's message", (p) => p.message.body === text);
  const conversationId = received.payload.conversationId;
  assert.equal(received.payload.message.kind, "incoming");
  await chat.getByRole("log").getByText(text).waitFor();
  step("the agent received the visitor's message live, and the visitor sees it sent");

  assert.equal(await agent.connection.invoke("JoinConversation", conversationId), undefined, "a void method completes without a result");
  await agent.connection.invoke("Typing", conversationId, true);
  await chat.getByText(TYPING).waitFor();
  step(`the visitor sees "${(await chat.getByText(TYPING).textContent())?.trim()}"`);

  const replyText = `Reply from the agent ${Date.now()}`;
  const readSent = widgetRequest(page, "POST", "/widget/v1/conversation/read");
  const repliedAt = performance.now();
  const reply = await agent.connection.invoke("SendMessage", conversationId, replyText);
  const replyItem = chat.getByRole("log").getByRole("listitem").filter({ hasText: replyText });
  await replyItem.waitFor();
  const seenAt = performance.now();
  assert.equal(reply.kind, "outgoing");
  const { displayName } = await rest("GET", "/api/me/profile");
  assert.ok((await replyItem.textContent()).includes(displayName), "the reply shows the agent's name");
  assert.equal(await replyItem.locator(".avatar").count(), 1, "and the agent's picture or initials");
  await chat.getByText(TYPING).waitFor({ state: "hidden" });
  const toAgent = received.at - sentAt;
  const toVisitor = seenAt - repliedAt;
  console.log(`# visitor -> agent ${Math.round(toAgent)} ms, agent -> visitor ${Math.round(toVisitor)} ms`);
  console.log(`latency_ms=${Math.round(toAgent + toVisitor)}`);
  await page.screenshot({ path: shot("3-conversation-reply.png") });
  step("the visitor sees the agent's reply, with the agent's name and avatar, without a reload");
  await readSent;
  step("the open chat reported the reply as read (POST /widget/v1/conversation/read)");

  const box = chat.getByRole("textbox", { name: "Message" });
  const sendButton = chat.getByRole("button", { name: "Send" });
  await box.fill("x".repeat(20_000));
  await chat.getByText("20,000 / 10,000 characters: too long to send. Shorten it by 10,000.").waitFor();
  assert.equal(await sendButton.isDisabled(), true, "a text over the limit cannot be sent");
  assert.equal((await box.inputValue()).length, 20_000, "and is kept whole, never cut");
  await box.press("Enter");
  assert.equal((await box.inputValue()).length, 20_000, "Enter does not send it either");
  await page.screenshot({ path: shot("widget-too-long-desktop.png") });
  await box.fill("x".repeat(9_500));
  await chat.getByText("9,500 / 10,000 characters", { exact: true }).waitFor();
  assert.equal(await sendButton.isDisabled(), false, "under the limit it can be sent again");
  await box.fill("");
  assert.equal(await chat.getByText(/\/ 10,000 characters/).count(), 0, "far from the limit, no counter");
  step("20,000 pasted characters: kept, counted, the send disabled with a clear message; 9,500 show a counter and send");

  const markup = '<img src=x onerror="window.__xss=1">';
  await send(chat, markup);
  await agent.messageCreated("the visitor's markup-like message", (p) => p.message.body === markup);
  await chat.getByRole("log").getByText(markup, { exact: true }).waitFor();
  assert.equal(await chat.getByRole("log").locator("img").count(), 0, "the message made no element");
  assert.equal(await (await chatWindow(page)).evaluate(() => typeof window.__xss), "undefined");
  step("a message that looks like HTML is shown as literal text, and runs nothing (window.__xss stays undefined)");

  await page.getByRole("button", { name: "Close chat" }).click();
  const readWhileClosed = [];
  const onRequest = (r) => {
    if (r.method() === "POST" && r.url().endsWith("/widget/v1/conversation/read")) readWhileClosed.push(r.url());
  };
  page.on("request", onRequest);
  const unseenText = `A reply while the chat is closed ${Date.now()}`;
  await agent.connection.invoke("SendMessage", conversationId, unseenText);
  const badged = page.getByRole("button", { name: "Open chat, 1 unread message", exact: true });
  await badged.waitFor();
  await page.screenshot({ path: shot("widget-unread-desktop.png") });
  await page.waitForTimeout(1500); // longer than the read report's debounce
  page.off("request", onRequest);
  assert.deepEqual(readWhileClosed, [], "a closed chat reports nothing as read");
  const readOnOpen = widgetRequest(page, "POST", "/widget/v1/conversation/read");
  await badged.click();
  await chat.getByRole("log").getByText(unseenText).waitFor();
  await readOnOpen;
  await page.getByRole("button", { name: "Close chat" }).click();
  await page.getByRole("button", { name: "Open chat", exact: true }).waitFor();
  step("a reply to a closed chat shows an unread badge, named \"Open chat, 1 unread message\"; opening clears it and reports it read");

  const movedTo = `${cfg.host}&step=checkout`;
  const contextMoved = widgetRequest(page, "PUT", "/widget/v1/context", (r) => r.postDataJSON()?.pageUrl === movedTo);
  await page.evaluate((url) => {
    history.pushState(null, "", url);
    document.title = "Checkout";
  }, movedTo);
  assert.equal((await contextMoved).postDataJSON().pageTitle, "Checkout");
  const { contact } = await rest("GET", `/api/conversations/${conversationId}`);
  let visitor = null;
  for (let i = 0; i < 20 && visitor?.pageUrl !== movedTo; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    ({ visitor } = await rest("GET", `/api/contacts/${contact.id}`));
  }
  assert.equal(visitor?.pageUrl, movedTo, "the agent's contact record has the page the visitor is on");
  assert.equal(visitor?.pageTitle, "Checkout");
  step("a single-page navigation on the host page sends the new address in PUT /widget/v1/context; the contact record shows it");

  await page.goto(`${cfg.host}#supportdesk-chat`);
  const closeButton = page.getByRole("button", { name: "Close chat" });
  await closeButton.waitFor();
  assert.equal(await closeButton.getAttribute("aria-expanded"), "true");
  chat = chatFrame(page);
  await chat.getByRole("status").filter({ hasText: /^Connected$/ }).waitFor();
  await chat.getByRole("log").getByText(text).waitFor();
  await chat.getByRole("log").getByText(replyText).waitFor();
  step("a link with #supportdesk-chat opens the chat by itself, and the conversation is still there (the visitor id survived)");

  for (let i = 0; i < 6; i++) {
    await agent.connection.invoke("SendMessage", conversationId, `Filler line ${i} to make the log scroll.\n.\n.`);
  }
  await chat.getByRole("log").getByText(/^Filler line 5/).waitFor();
  await rest("POST", `/api/conversations/${conversationId}/status`, { status: "resolved" });
  const notice = chat.getByText("This conversation is resolved. Write again within 7 days to reopen it.");
  await notice.waitFor();
  await page.waitForTimeout(200);
  /** Whether an element of the chat shows whole inside its scroller. */
  const inView = (locator) =>
    locator.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const scroller = el.closest(".body").getBoundingClientRect();
      return box.top >= scroller.top && box.bottom <= scroller.bottom + 1;
    });
  assert.equal(await inView(notice), true, "the resolved notice is scrolled into view");
  await page.screenshot({ path: shot("widget-resolved-desktop.png") });
  step("when the agent resolves the conversation, the notice appears in view");

  const ratingQuestion = chat.getByRole("group", { name: "How would you rate our help?" });
  await ratingQuestion.waitFor();
  const choices = chat.getByRole("radio");
  const names = await choices.evaluateAll((radios) => radios.map((r) => r.getAttribute("aria-label")));
  assert.deepEqual(names, ["1 of 5, very unhappy", "2 of 5, unhappy", "3 of 5, neutral", "4 of 5, happy", "5 of 5, very happy"]);
  const comment = chat.getByRole("textbox", { name: "Comment (optional)" });
  const submitRating = chat.getByRole("button", { name: "Submit rating" });
  assert.equal(await submitRating.isDisabled(), true, "nothing to submit before a choice");
  await page.waitForTimeout(200);
  assert.equal(await inView(submitRating), true, "the rating form is scrolled into view");
  assert.equal(await inView(notice), true, "under the notice, which stays in view");
  await checkAccessibility(page, "widget-rating-form");
  await page.screenshot({ path: shot("widget-rating-desktop.png") });
  step("the workspace asks for a rating: under the notice, five choices from \"1 of 5, very unhappy\" to \"5 of 5, very happy\", a comment and Submit rating (axe too)");

  // Keyboard only: the arrow keys choose within the group, Tab moves on, Enter submits.
  const focused = (locator) => locator.evaluate((el) => el === document.activeElement);
  await chat.getByRole("radio", { name: "1 of 5, very unhappy" }).focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  const four = chat.getByRole("radio", { name: "4 of 5, happy" });
  assert.equal(await four.isChecked(), true, "three presses of the right arrow choose 4");
  assert.equal(await focused(four), true);
  const ring = await four.evaluate((el) => getComputedStyle(el.nextElementSibling).boxShadow);
  assert.notEqual(ring, "none", "the focused choice shows a focus ring");
  const ratingComment = "Quick and kind, thank you!";
  await page.keyboard.press("Tab");
  assert.equal(await focused(comment), true, "Tab leaves the group for the comment");
  await page.keyboard.type(ratingComment);
  await page.keyboard.press("Tab");
  assert.equal(await focused(submitRating), true, "and then Submit rating");
  const ratingSent = widgetRequest(page, "POST", "/widget/v1/conversation/rating");
  await page.keyboard.press("Enter");
  assert.deepEqual((await ratingSent).postDataJSON(), { rating: 4, comment: ratingComment });
  const thanks = chat.getByText("Thanks for your rating!");
  await thanks.waitFor();
  await chat.getByText("You rated 4 of 5.").waitFor();
  await ratingQuestion.waitFor({ state: "hidden" });
  assert.equal(await thanks.evaluate((el) => el.parentElement === document.activeElement), true, "the thank-you takes the focus from the form");
  const rated = await rest("GET", `/api/conversations/${conversationId}`);
  assert.equal(rated.ratings?.length, 1, `one rating on the conversation: ${JSON.stringify(rated.ratings)}`);
  assert.equal(rated.ratings[0].rating, 4);
  assert.equal(rated.ratings[0].comment, ratingComment);
  await page.screenshot({ path: shot("widget-rated-desktop.png") });
  step("with the keyboard only, the visitor rates 4 with a comment: thanked, the form gone, and the agent sees the rating on the conversation");

  const moreText = `One more question after the resolution ${Date.now()}`;
  await send(chat, moreText);
  const more = await agent.messageCreated("the visitor's message after the resolution", (p) => p.message.body === moreText);
  assert.equal(more.payload.conversationId, conversationId, "the same conversation continues");
  await chat.getByRole("log").getByText(moreText).waitFor();
  await notice.waitFor({ state: "hidden" });
  await chat.getByText("You rated 4 of 5.").waitFor({ state: "hidden" });
  assert.equal(await ratingQuestion.count(), 0, "no rating asked of an open conversation");
  await chat.getByRole("log").getByText(text).waitFor();
  const reopened = await rest("GET", `/api/conversations/${conversationId}`);
  assert.equal(reopened.status, "open");
  step("the visitor writes again: the same conversation reopens (status open), its messages kept, the notice and the rating gone");

  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  phone.setDefaultTimeout(TIMEOUT);
  const small = await phone.newPage();
  watch(small, "phone", urls);
  await small.goto(cfg.host);
  await small.getByRole("button", { name: "Open chat" }).waitFor();
  await small.evaluate((identity) => window.SupportDesk.identify(identity), cfg.identity);
  const phoneChat = await openChat(small);
  const frameBox = await small.locator('iframe[title="Chat"]').boundingBox();
  const screenBox = await small.evaluate(() => [innerWidth, innerHeight]);
  assert.deepEqual(
    [frameBox?.x, frameBox?.y, Math.round(frameBox?.width ?? 0), Math.round(frameBox?.height ?? 0)],
    [0, 0, ...screenBox],
    "the open chat fills a phone-sized screen",
  );
  assert.equal(await small.getByRole("button", { name: /chat/ }).count(), 0, "the launcher hides over it");
  const phoneText = `Hello from a phone ${Date.now()}`;
  await send(phoneChat, phoneText, "enter");
  const phoneMessage = await agent.messageCreated("the identified visitor's message", (p) => p.message.body === phoneText);
  await phoneChat.getByRole("log").getByText(phoneText).waitFor();
  await small.screenshot({ path: shot("4-identified-phone.png") });
  assert.notEqual(phoneMessage.payload.conversationId, conversationId, "another visitor, another conversation");
  const conversation = await rest("GET", `/api/conversations/${phoneMessage.payload.conversationId}`);
  assert.equal(conversation.contact?.claimedEmail, cfg.identity.email, "the contact carries the identity's email, as a claim");
  assert.equal(conversation.contact?.email, null, "a claim is no established address");
  step("an identified visitor on a 390x844 screen: Enter sends, and the contact has the identity's email as a claim");

  // The default brand colour too: the lightest text on it is the header's presence line.
  await rest("PATCH", "/api/settings", { branding: { color: null } });
  const plain = await desktop.newPage();
  watch(plain, "default colour", urls);
  await plain.goto(cfg.host);
  const plainChat = await openChat(plain);
  const header = await plainChat.locator("header").evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.equal(header, "rgb(31, 111, 235)", "the header has the default colour");
  await visit(plain, cfg.screenshots, "5-widget-default-colour", { fullPage: false, settle: settle(plain) });
  await plain.close();
  step("with the default brand colour, the open widget passes axe too");

  const refusedPage = await desktop.newPage();
  const expected = `Support Desk: this page's origin ${new URL(cfg.refusedHost).origin} is not allowed for this widget. Add it in Settings → Chat widget → Allowed origins. If it is there already, check the script tag's data-site-key (an unknown site key gets the same answer).`;
  const refusal = refusedPage.waitForEvent("console", (m) => m.type() === "error" && m.text().includes("is not allowed for this widget"));
  await refusedPage.goto(cfg.refusedHost);
  assert.equal((await refusal).text(), expected);
  await refusedPage.waitForTimeout(500);
  assert.equal(await refusedPage.locator("[data-supportdesk]").count(), 0, "nothing drawn on a refused origin");
  assert.equal(await refusedPage.getByRole("button", { name: /chat/i }).count(), 0, "no launcher");
  await refusedPage.screenshot({ path: shot("widget-refused-origin-desktop.png") });
  step("on an origin the workspace does not allow: no launcher, and the console names the origin to add and where");

  const leaked = urls.filter((u) => /access_token|eyJ[\w-]+\.eyJ/.test(u));
  assert.deepEqual(leaked, [], "no token in any URL the browser requested");
  step("no token in any URL the browser requested");
  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on the host page with the widget closed or open, at either size");
  console.log("all passed");
} catch (error) {
  console.log(`not ok - ${error?.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
  await agent.connection.stop().catch(() => undefined);
}
