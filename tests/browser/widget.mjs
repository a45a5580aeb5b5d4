// The chat widget as a visitor meets it, in a real browser (Debian's chromium through
// playwright-core), against the real API and hub; an agent answers through the official
// @microsoft/signalr client. Run by the Rust suite, which starts the API, the widget app and a
// plain HTML page on another origin with the loader's <script> tag, and passes WIDGET_TEST_CONFIG:
//   { api, widget, host, agent: {token}, identity: {externalId, email, name, hash},
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium", greeting?: "expected text" }
// Each step prints `ok - ...`; one line `latency_ms=N` gives visitor send -> agent receives
// plus agent reply -> visitor sees it. The first failure prints `not ok - ...` and exits 1.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import * as signalR from "@microsoft/signalr";
import { chromium } from "playwright-core";

const cfg = JSON.parse(process.env.WIDGET_TEST_CONFIG ?? "null");
if (!cfg?.api || !cfg?.host || !cfg?.agent?.token || !cfg?.identity || !cfg?.screenshots) {
  console.error("not ok - WIDGET_TEST_CONFIG must hold {api, widget, host, agent: {token}, identity, screenshots}");
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
        if (waiters.includes(waiter)) reject(new Error(`the agent never received MessageCreated for ${what}`));
      }, TIMEOUT);
    });
  }
  return { connection, messageCreated };
}

async function rest(method, path) {
  const response = await fetch(`${cfg.api}${path}`, {
    method,
    headers: { Authorization: `Bearer ${cfg.agent.token}` },
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

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
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  desktop.setDefaultTimeout(TIMEOUT);
  const page = await desktop.newPage();
  watch(page, "desktop", urls);

  await page.goto(cfg.host);
  const launcher = page.getByRole("button", { name: "Open chat" });
  await launcher.waitFor();
  assert.equal(await launcher.getAttribute("aria-expanded"), "false");
  assert.equal(await page.evaluate(() => typeof window.SupportDesk?.identify), "function");
  await page.screenshot({ path: shot("1-launcher-closed.png") });
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

  let chat = await openChat(page);
  await page.screenshot({ path: shot("2-chat-open.png") });
  step("the chat opened with the greeting, connected live");

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
  const repliedAt = performance.now();
  const reply = await agent.connection.invoke("SendMessage", conversationId, replyText);
  const replyItem = chat.getByRole("log").getByRole("listitem").filter({ hasText: replyText });
  await replyItem.waitFor();
  const seenAt = performance.now();
  assert.equal(reply.kind, "outgoing");
  const { displayName } = await rest("GET", "/api/me/profile");
  assert.ok((await replyItem.textContent()).includes(displayName), "the reply shows the agent's name");
  await chat.getByText(TYPING).waitFor({ state: "hidden" });
  const toAgent = received.at - sentAt;
  const toVisitor = seenAt - repliedAt;
  console.log(`# visitor -> agent ${Math.round(toAgent)} ms, agent -> visitor ${Math.round(toVisitor)} ms`);
  console.log(`latency_ms=${Math.round(toAgent + toVisitor)}`);
  await page.screenshot({ path: shot("3-conversation-reply.png") });
  step("the visitor sees the agent's reply, with the agent's name, without a reload");

  const markup = '<img src=x onerror="window.__xss=1">';
  await send(chat, markup);
  await agent.messageCreated("the visitor's markup-like message", (p) => p.message.body === markup);
  await chat.getByRole("log").getByText(markup, { exact: true }).waitFor();
  assert.equal(await chat.getByRole("log").locator("img").count(), 0, "the message made no element");
  assert.equal(await (await chatWindow(page)).evaluate(() => typeof window.__xss), "undefined");
  step("a message that looks like HTML is shown as literal text, and runs nothing (window.__xss stays undefined)");

  await page.reload();
  chat = await openChat(page);
  await chat.getByRole("log").getByText(text).waitFor();
  await chat.getByRole("log").getByText(replyText).waitFor();
  step("after a reload the conversation is still there (the visitor id survived)");

  const phone = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
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
  await small.screenshot({ path: shot("4-phone.png") });
  assert.notEqual(phoneMessage.payload.conversationId, conversationId, "another visitor, another conversation");
  const conversation = await rest("GET", `/api/conversations/${phoneMessage.payload.conversationId}`);
  assert.equal(conversation.contact?.claimedEmail, cfg.identity.email, "the contact carries the identity's email, as a claim");
  assert.equal(conversation.contact?.email, null, "a claim is no established address");
  step("an identified visitor on a 375x667 screen: Enter sends, and the contact has the identity's email as a claim");

  const leaked = urls.filter((u) => /access_token|eyJ[\w-]+\.eyJ/.test(u));
  assert.deepEqual(leaked, [], "no token in any URL the browser requested");
  step("no token in any URL the browser requested");
  console.log("all passed");
} catch (error) {
  console.log(`not ok - ${error?.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
  await agent.connection.stop().catch(() => undefined);
}
