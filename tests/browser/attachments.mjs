// Files on messages, both ways, in a real browser (Debian's chromium through playwright-core),
// against the real API and hub, the dashboard, and the chat widget on a plain page of another
// origin. Run by the Rust suite (tests/api/attachments_browser.rs), which starts the API, the
// dashboard, the widget app and the host page, and passes ATTACHMENTS_TEST_CONFIG:
//   { api, dashboard: "http://localhost:D", widget: "http://localhost:W",
//     host: "http://127.0.0.1:H/?siteKey=swk_...", (a page that injects the widget's loader)
//     agent: { email, password },   a verified Owner of the workspace, signing in through /login
//     workspaceName,                 the workspace to open in the picker
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium" (optional) }
// The journey: a visitor starts a chat in the widget; the agent opens it in the dashboard,
// drops a script on the reply box (refused by the API: the chip says why, in an alert, and is
// removed), and PASTES a screenshot (a PNG put on a clipboard event) into the reply box, which uploads it at
// once and shows it as a chip, then sends the reply; the visitor's widget shows the thumbnail
// live and the visitor opens it: the full image answers 200 with image/png and the very bytes
// pasted. The visitor attaches a PDF (the labelled file input) and sends it; the agent's
// dashboard shows it live, without a reload, and the agent downloads it: the bytes are the
// visitor's. The settings page counts the workspace's two files. Every page showing files (the
// reply box with its chip, the conversation, the widget, the settings' storage use) is
// screenshotted at desktop and phone sizes and checked with axe (WCAG 2.1 A/AA); no image may
// be refused by a Content-Security-Policy. Each step prints `ok - ...`; the first failure
// prints `not ok - ...` and exits 1; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { chromium } from "playwright-core";
import { assertNoViolations, DESKTOP, visit, signIn } from "./pages.mjs";

const cfg = JSON.parse(process.env.ATTACHMENTS_TEST_CONFIG ?? "null");
for (const key of ["api", "dashboard", "widget", "host", "workspaceName", "screenshots"]) {
  if (!cfg?.[key] || !cfg?.agent?.email || !cfg?.agent?.password) {
    console.error(
      "not ok - ATTACHMENTS_TEST_CONFIG must hold {api, dashboard, widget, host, agent: {email, password}, workspaceName, screenshots, chromium?}",
    );
    process.exit(2);
  }
}
const TIMEOUT = 20_000;
const run = Date.now().toString(36);
const dashboard = (path) => new URL(path, cfg.dashboard).toString();
const field = (page, label) => page.getByLabel(label, { exact: true });

let currentStep = "starting";
function step(name) {
  console.log(`ok - ${name}`);
}
function doing(name) {
  currentStep = name;
}

/** Screenshots at desktop and phone sizes, each checked with axe (pages.mjs). */
async function shot(page, name, fullPage = false) {
  await visit(page, cfg.screenshots, name, { fullPage, settle: () => page.waitForTimeout(250) });
}

// ---- the files ---------------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width` x `height` RGB PNG: a "screenshot" of stripes, its colours seeded by this run. */
function screenshotPng(width, height) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter, no interlace
  const seed = Number.parseInt(run.slice(-4), 36) % 256;
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const band = Math.floor(y / 16) % 3;
      row.set([band === 0 ? 230 : 40, band === 1 ? 200 : (x + seed) % 256, band === 2 ? 210 : 60], 1 + x * 3);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A one-page PDF, unique to this run. */
function invoicePdf() {
  return Buffer.from(
    [
      "%PDF-1.4",
      "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
      "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
      "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] >> endobj",
      `% invoice ${run}`,
      "trailer << /Root 1 0 R >>",
      "%%EOF",
      "",
    ].join("\n"),
    "latin1",
  );
}

const SHOT_NAME = `order-${run}.png`;
const SHOT = screenshotPng(480, 300);
const PDF_NAME = `invoice-${run}.pdf`;
const PDF = invoicePdf();

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

/** Waits until `img` has loaded a picture (naturalWidth > 0); its natural size. */
async function loaded(img) {
  await img.waitFor();
  await img.evaluate(
    (el) =>
      new Promise((resolve, reject) => {
        const done = () => (el.naturalWidth > 0 ? resolve() : reject(new Error(`the image ${el.alt} did not load`)));
        if (el.complete) done();
        else {
          el.addEventListener("load", done, { once: true });
          el.addEventListener("error", done, { once: true });
        }
      }),
  );
  return img.evaluate((el) => ({ width: el.naturalWidth, height: el.naturalHeight, src: el.currentSrc }));
}

/** A request whose path ends with `suffix`, by method, answered from now on. */
function answered(page, method, suffix) {
  return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname.endsWith(suffix));
}

let browser;
let exitCode = 0;
try {
  mkdirSync(cfg.screenshots, { recursive: true });
  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const agentContext = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
  agentContext.setDefaultTimeout(TIMEOUT);
  const visitorContext = await browser.newContext({ viewport: DESKTOP });
  visitorContext.setDefaultTimeout(TIMEOUT);
  const agentPage = await agentContext.newPage();
  watch(agentPage, "agent");
  const visitorPage = await visitorContext.newPage();
  watch(visitorPage, "visitor");

  doing("the visitor starts a chat in the widget");
  const hello = `My parcel arrived damaged, order ${run}`;
  await visitorPage.goto(cfg.host);
  await visitorPage.getByRole("button", { name: "Open chat" }).click();
  const chat = visitorPage.locator('iframe[title="Chat"]').contentFrame();
  await chat.getByRole("status").filter({ hasText: /^Connected$/ }).waitFor();
  await chat.getByRole("textbox", { name: "Message" }).fill(hello);
  await chat.getByRole("button", { name: "Send" }).click();
  const visitorLog = chat.getByRole("log");
  await visitorLog.getByText(hello).waitFor();
  step("the visitor wrote through the widget on the customer's page");

  doing("the agent signs in and opens the visitor's conversation");
  await signIn(agentPage, cfg.dashboard, { email: cfg.agent.email, password: cfg.agent.password, workspaceName: cfg.workspaceName });
  await agentPage.getByRole("status", { name: "Live updates: Live" }).waitFor();
  await agentPage.getByRole("tab", { name: "All" }).click();
  await agentPage.getByRole("list", { name: "Conversations" }).getByRole("link").filter({ hasText: hello }).click();
  await agentPage.waitForURL(/\/inbox\/[^/]+$/);
  const conversationId = new URL(agentPage.url()).pathname.split("/").pop();
  const thread = agentPage.getByRole("log", { name: "Messages" });
  await thread.getByText(hello).waitFor();
  await agentPage.evaluate(() => {
    window.__sameDocument = true;
  });
  step("the agent signed in through /login and opened the conversation");

  doing("the agent drops a script onto the reply box, which the API refuses");
  const box = field(agentPage, "Reply to the visitor");
  await box.click();
  const refusedUpload = answered(agentPage, "POST", `/api/conversations/${conversationId}/attachments`);
  await box.evaluate((el, name) => {
    const files = new DataTransfer();
    files.items.add(new File(["#!/bin/sh\necho cleaning up\n"], name, { type: "text/x-sh" }));
    for (const type of ["dragenter", "dragover", "drop"]) {
      el.dispatchEvent(new DragEvent(type, { dataTransfer: files, bubbles: true, cancelable: true }));
    }
  }, "cleanup.sh");
  assert.equal((await refusedUpload).status(), 415);
  const refusedChip = agentPage.getByRole("list", { name: "Files to send" }).getByRole("listitem").filter({ hasText: "cleanup.sh" });
  const refusal = refusedChip.getByRole("alert");
  await refusal.waitFor();
  const refusalText = (await refusal.textContent())?.trim() ?? "";
  assert.match(refusalText, /not accepted/);
  assert.ok(await agentPage.getByRole("button", { name: "Send reply" }).isDisabled(), "nothing to send but a refused file");
  await refusedChip.getByRole("button", { name: "Remove cleanup.sh" }).click();
  await refusedChip.waitFor({ state: "detached" });
  step(`a script dropped on the reply box was refused (415), the chip said why in an alert ("${refusalText}"), and was removed`);

  doing("the agent pastes a screenshot into the reply box");
  const uploaded = answered(agentPage, "POST", `/api/conversations/${conversationId}/attachments`);
  await box.evaluate(
    (el, { name, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const clipboard = new DataTransfer();
      clipboard.items.add(new File([bytes], name, { type: "image/png" }));
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: clipboard, bubbles: true, cancelable: true }));
    },
    { name: SHOT_NAME, base64: SHOT.toString("base64") },
  );
  const upload = await uploaded;
  assert.equal(upload.status(), 201, `the upload answered ${upload.status()}: ${await upload.text()}`);
  const stored = await upload.json();
  assert.equal(stored.name, SHOT_NAME);
  assert.equal(stored.contentType, "image/png");
  assert.equal(stored.size, SHOT.length);
  assert.deepEqual([stored.width, stored.height], [480, 300]);
  const chip = agentPage.getByRole("list", { name: "Files to send" }).getByRole("listitem").filter({ hasText: SHOT_NAME });
  await chip.getByRole("button", { name: `Remove ${SHOT_NAME}` }).waitFor();
  await loaded(chip.locator("img"));
  assert.equal(await chip.getByText("Uploading…").count(), 0, "the chip no longer says it is uploading");
  assert.equal(await box.inputValue(), "", "pasting an image puts no text in the box");
  await shot(agentPage, "reply-with-pasted-screenshot");
  step(`the pasted screenshot uploaded at once (201, ${stored.size} bytes, 480x300) and shows as a chip with its thumbnail`);

  doing("the agent sends the reply with the screenshot");
  const replyText = `Is this the box you mean? (${run})`;
  await box.fill(replyText);
  const sent = answered(agentPage, "POST", `/api/conversations/${conversationId}/messages`);
  await agentPage.getByRole("button", { name: "Send reply" }).click();
  const reply = await sent;
  assert.equal(reply.status(), 201);
  assert.deepEqual(reply.request().postDataJSON(), { body: replyText, attachmentIds: [stored.id] });
  const agentThumb = thread.getByRole("img", { name: SHOT_NAME });
  const agentSeen = await loaded(agentThumb);
  assert.ok(agentSeen.src.startsWith(`${cfg.api}/files/`), `the thumbnail comes from the API (${agentSeen.src})`);
  assert.equal(await agentPage.getByRole("list", { name: "Files to send" }).count(), 0, "the chips went with the reply");
  step("the reply went with attachmentIds, and the thread shows the screenshot's thumbnail from the API");

  doing("the visitor sees the thumbnail and opens the full image");
  await visitorLog.getByText(replyText).waitFor();
  const visitorThumb = visitorLog.getByRole("img", { name: SHOT_NAME });
  const thumbSeen = await loaded(visitorThumb);
  assert.ok(thumbSeen.src.startsWith(`${cfg.api}/files/`) && thumbSeen.src.includes("/thumbnail?"), `a thumbnail of the API (${thumbSeen.src})`);
  await shot(visitorPage, "widget-with-screenshot");
  const original = visitorContext.waitForEvent("response", (r) => new URL(r.url()).pathname.endsWith(`/${stored.id}/original`));
  const [tab] = await Promise.all([visitorContext.waitForEvent("page"), visitorLog.getByRole("link", { name: SHOT_NAME }).click()]);
  const full = await original;
  assert.equal(full.status(), 200, `the full image answered ${full.status()}`);
  assert.equal(full.headers()["content-type"], "image/png");
  assert.ok(Buffer.from(await full.body()).equals(SHOT), "the visitor's full image is the very screenshot pasted");
  await tab.waitForLoadState();
  assert.ok(new URL(tab.url()).href.startsWith(`${cfg.api}/files/`), `the new tab shows the API's file (${tab.url()})`);
  await tab.close();
  step("the visitor's widget showed the thumbnail live; the full image opened in a new tab (200, image/png, the same bytes)");

  doing("the visitor attaches a PDF and sends it");
  const visitorUploaded = answered(visitorPage, "POST", "/widget/v1/attachments");
  await chat.getByLabel("Attach a file").setInputFiles({ name: PDF_NAME, mimeType: "application/pdf", buffer: PDF });
  const visitorUpload = await visitorUploaded;
  assert.equal(visitorUpload.status(), 201, `the visitor's upload answered ${visitorUpload.status()}`);
  const pdf = await visitorUpload.json();
  assert.equal(pdf.contentType, "application/pdf");
  const visitorChip = chat.getByRole("list", { name: "Files to send" }).getByRole("listitem").filter({ hasText: PDF_NAME });
  await visitorChip.getByRole("button", { name: `Remove ${PDF_NAME}` }).waitFor();
  const invoiceText = `Here is the invoice (${run})`;
  await chat.getByRole("textbox", { name: "Message" }).fill(invoiceText);
  const visitorSent = answered(visitorPage, "POST", "/widget/v1/messages");
  await chat.getByRole("button", { name: "Send" }).click();
  const visitorMessage = await visitorSent;
  assert.equal(visitorMessage.status(), 201);
  assert.deepEqual(visitorMessage.request().postDataJSON(), { body: invoiceText, attachmentIds: [pdf.id] });
  await visitorLog.getByRole("link", { name: new RegExp(PDF_NAME.replace(/[.]/g, "\\.")) }).waitFor();
  step("the visitor attached a PDF with the file input; it went by POST /widget/v1/messages with attachmentIds");

  doing("the agent's dashboard shows the PDF live, and the agent downloads it");
  const pdfLink = thread.getByRole("link", { name: new RegExp(PDF_NAME.replace(/[.]/g, "\\.")) });
  await pdfLink.waitFor();
  assert.equal(await agentPage.evaluate(() => window.__sameDocument), true, "the conversation was not reloaded");
  assert.match((await pdfLink.textContent()) ?? "", new RegExp(`${PDF.length} bytes`), "the link says the file's size");
  const [download] = await Promise.all([agentPage.waitForEvent("download"), pdfLink.click()]);
  assert.equal(download.suggestedFilename(), PDF_NAME);
  const downloaded = readFileSync(await download.path());
  assert.ok(downloaded.equals(PDF), "the agent's download is the visitor's PDF, byte for byte");
  step(`the PDF appeared live in the agent's thread; the download (${downloaded.length} bytes) equals the visitor's file`);

  doing("the pages with files, under axe");
  await loaded(agentThumb);
  await shot(agentPage, "conversation-with-files");
  await visitorLog.getByRole("link", { name: new RegExp(PDF_NAME.replace(/[.]/g, "\\.")) }).waitFor();
  await shot(visitorPage, "widget-with-files");
  step("the conversation and the widget with files: screenshots at both sizes, checked with axe");

  doing("the settings page counts the workspace's files");
  await agentPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await agentPage.getByRole("heading", { name: "Files", exact: true }).waitFor();
  const use = agentPage.getByTestId("storage-use");
  await use.waitFor();
  assert.match((await use.textContent()) ?? "", /used, 2 files$/);
  await shot(agentPage, "settings-storage", true);
  step(`the settings page says "${(await use.textContent())?.trim()}"`);

  doing("no image was refused by a Content-Security-Policy");
  assert.deepEqual(refusedByCsp, []);
  step("every thumbnail and image loaded under the apps' Content-Security-Policies");

  doing("axe on every page shown");
  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on the pages with files");
} catch (error) {
  exitCode = 1;
  console.error(`not ok - ${currentStep}: ${error instanceof Error ? error.message : error}`);
  if (error instanceof Error && error.stack) console.error(error.stack.split("\n").slice(1, 4).join("\n"));
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);
