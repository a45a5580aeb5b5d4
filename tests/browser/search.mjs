// The search box in a real browser (Debian's chromium through playwright-core), against the
// real API and the dashboard. Run by the Rust suite (tests/api/search_browser.rs), which starts
// both, makes an Owner with a workspace whose conversation with Carla Mendes holds, among two
// dozen other messages, the reply "We refunded the kettle; the refund arrives in 3 days.", and
// passes SEARCH_TEST_CONFIG:
//   { api, dashboard, email, password, workspaceName,
//     conversationId, messageId,   Carla's conversation and the reply
//     contactId,                   Carla
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium" (optional) }
// The journey: the Owner signs in; Ctrl+K opens the "Search" dialog with the focus in its
// combobox; "refunds" lists the reply under "Messages", its snippet marking "refunded" and
// "refund" (<mark>), the count announced; the open box is screenshotted and checked with axe;
// the arrow keys move the active option (aria-activedescendant) and Enter opens the reply in
// its conversation: the URL names the message, the bubble is in view, outlined and focused.
// Then the header's Search button opens the box again, "Mendez" (misspelt) finds the contact
// Carla Mendes under "Contacts", and a click shows the inbox with her conversations only.
// Labels: in Settings the Owner makes "Billing" (a colour, a description); in Carla's
// conversation the Labels disclosure ticks it and the chip shows in the header and in the
// inbox row; the inbox's Label filter shows her conversation alone (in the URL, so a reload
// keeps it); the search box, filtered by the label over the API, agrees. Axe checks the
// Labels settings and the open picker.
// Filters and views: the Priority filter (Carla's conversation is urgent) lists hers alone;
// "Unread only" lists none (nobody wrote in); "Save view" keeps Priority: Urgent as the shared
// view "Urgent", listed with its count 1 and marked current; back on the whole inbox, the
// view's link brings the filter back; a second shared view, "Triage", moves above it and back
// with its arrow buttons. Dates and agents: "Created from" tomorrow (under the
// "Dates" disclosure) asks the API for conversations created from tomorrow's local midnight on
// and lists none; emptied, the three are back; "Assigned to" the Owner asks for the Owner's
// (all three: the Owner started them) under the All tab, and "Clear filters" ends it. In
// Carla's contact panel the Labels disclosure puts Billing on her (the contact). Axe checks the
// inbox with its views, with a date filter, and the contact's picker.
// Each step prints `ok - ...`; a failure prints `not ok - ...` and exits 1; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { chromium } from "playwright-core";
import { assertNoViolations, checkAccessibility, DESKTOP, journey, signIn } from "./pages.mjs";

const cfg = JSON.parse(process.env.SEARCH_TEST_CONFIG ?? "null");
const configured = ["api", "dashboard", "email", "password", "workspaceName", "conversationId", "messageId", "contactId", "screenshots"].every(
  (key) => cfg?.[key],
);
if (!configured) {
  console.error(
    "not ok - SEARCH_TEST_CONFIG must hold {api, dashboard, email, password, workspaceName, conversationId, messageId, contactId, screenshots, chromium?}",
  );
  process.exit(2);
}
const TIMEOUT = 20_000;
const dashboard = (path) => new URL(path, cfg.dashboard).toString();
const progress = journey();
const { step, doing, check } = progress;

function answered(page, method, suffix) {
  return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname.endsWith(suffix));
}

/** The next `GET /api/conversations` whose query passes `test`. */
function listed(page, test) {
  return page.waitForResponse((r) => {
    const url = new URL(r.url());
    return r.request().method() === "GET" && url.pathname === "/api/conversations" && test(url.searchParams);
  });
}

/** Waits (up to 10 s) until the inbox lists `count` conversations. */
async function listsRows(page, count) {
  const rows = page.getByRole("list", { name: "Conversations" }).getByRole("link");
  const until = Date.now() + 10_000;
  while ((await rows.count()) !== count && Date.now() < until) await page.waitForTimeout(100);
  assert.equal(await rows.count(), count, `${count} conversation(s) listed`);
}

/** The next `GET /api/search` whose `q` is `q`. */
function searched(page, q) {
  return page.waitForResponse((r) => {
    const url = new URL(r.url());
    return r.request().method() === "GET" && url.pathname === "/api/search" && url.searchParams.get("q") === q;
  });
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
  page.on("pageerror", (e) => console.log(`# page error: ${e.message}`));

  doing("the Owner signs in and opens the workspace");
  const selected = answered(page, "POST", "/select");
  await signIn(page, cfg.dashboard, { email: cfg.email, password: cfg.password, workspaceName: cfg.workspaceName });
  assert.equal((await selected).status(), 200);
  await page.getByRole("list", { name: "Conversations" }).getByRole("link").first().waitFor();
  step("the Owner signed in and sees the inbox");

  doing("Ctrl+K opens the search box with the focus in it");
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Search" });
  await dialog.waitFor();
  const box = dialog.getByRole("combobox", { name: "Search conversations, messages, tickets and contacts" });
  await box.waitFor();
  assert.ok(await box.evaluate((el) => el === document.activeElement), "the combobox has the focus");
  step('Ctrl+K opened the "Search" dialog, focus in its combobox');

  doing('"refunds" finds the reply among the messages, with its words marked');
  const refunds = searched(page, "refunds");
  await box.fill("refunds");
  assert.equal((await refunds).status(), 200);
  const listbox = dialog.getByRole("listbox", { name: "Results" });
  const messages = listbox.getByRole("group", { name: "Messages" });
  const option = messages.getByRole("option").filter({ hasText: "refunded the kettle" });
  await option.waitFor();
  const marked = (await option.locator("mark").allInnerTexts()).map((t) => t.toLowerCase());
  assert.ok(marked.includes("refunded") && marked.includes("refund"), `marked: ${JSON.stringify(marked)}`);
  assert.equal(await option.locator("span.search-title").innerText(), "Broken kettle", "the conversation's subject names it");
  await dialog.getByRole("status").filter({ hasText: /^\d+ results?$/ }).waitFor();
  step(`"refunds": the reply under Messages, marks ${JSON.stringify(marked)}, the count announced`);
  await page.screenshot({ path: `${cfg.screenshots}/search-open.png` });
  await checkAccessibility(page, "search box with results");

  doing("the arrow keys move the active option and Enter opens the reply where it was written");
  const options = listbox.getByRole("option");
  const count = await options.count();
  const activeId = () => box.getAttribute("aria-activedescendant");
  const first = await activeId();
  assert.equal(first, await options.first().getAttribute("id"), "the first result starts active");
  let found = false;
  for (let n = 0; n < count; n++) {
    const active = await activeId();
    const text = await page.locator(`[id="${active}"]`).innerText();
    if (text.includes("refunded the kettle")) {
      found = true;
      break;
    }
    await page.keyboard.press("ArrowDown");
  }
  assert.ok(found, "the arrow keys reach the reply");
  assert.equal(await page.locator(`[id="${await activeId()}"]`).getAttribute("aria-selected"), "true");
  await page.keyboard.press("Enter");
  await page.waitForURL((url) => url.pathname === `/inbox/${cfg.conversationId}` && url.searchParams.get("message") === cfg.messageId);
  const bubble = page.locator(`[id="message-${cfg.messageId}"]`);
  await bubble.waitFor();
  await page.waitForFunction((id) => document.activeElement?.id === `message-${id}`, cfg.messageId);
  assert.ok(await bubble.evaluate((el) => el.classList.contains("bubble-found")), "the found message is outlined");
  const inView = await bubble.evaluate((el) => {
    const box = el.closest(".thread-scroll").getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.top >= box.top && r.bottom <= box.bottom;
  });
  assert.ok(inView, "the found message is scrolled into view");
  assert.equal(await dialog.isVisible(), false, "the search box closed");
  step("Enter opened the conversation at the reply: in view, outlined and focused");
  await page.screenshot({ path: `${cfg.screenshots}/search-found-message.png` });
  await checkAccessibility(page, "conversation at a found message");

  doing('the header\'s Search button, "Mendez", opens Carla\'s conversations');
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await box.waitFor();
  const mendez = searched(page, "Mendez");
  await box.fill("Mendez");
  assert.equal((await mendez).status(), 200);
  const contact = listbox.getByRole("group", { name: "Contacts" }).getByRole("option").filter({ hasText: "Carla Mendes" });
  await contact.waitFor();
  await contact.click();
  await page.waitForURL((url) => url.pathname === "/inbox" && url.searchParams.get("contact") === cfg.contactId);
  const rows = page.getByRole("list", { name: "Conversations" }).getByRole("link");
  await page.getByRole("status").filter({ hasText: "One contact's conversations." }).waitFor();
  await rows.first().waitFor();
  await check("only her conversation is listed", async () => {
    const deadline = Date.now() + 10_000;
    while ((await rows.count()) !== 1 && Date.now() < deadline) await page.waitForTimeout(100);
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /Carla Mendes/);
  });
  step('"Mendez" found Carla Mendes; the inbox shows her conversation alone');
  await page.getByRole("button", { name: "Show everyone's" }).click();
  await page.waitForURL((url) => url.pathname === "/inbox" && !url.searchParams.has("contact"));
  step('"Show everyone\'s" brings the whole inbox back');

  doing("in Settings, the Owner makes the label Billing");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await page.waitForURL(/\/settings$/);
  const labelsSection = page.getByRole("region", { name: "Labels", exact: true });
  await labelsSection.getByRole("button", { name: "New label" }).click();
  const labelDialog = page.getByRole("dialog", { name: "New label" });
  await labelDialog.getByLabel("Name", { exact: true }).fill("Billing");
  await labelDialog.getByLabel("Colour", { exact: true }).fill("#7c3aed");
  await labelDialog.getByLabel("Description", { exact: true }).fill("Invoices and refunds");
  const created = answered(page, "POST", "/api/labels");
  await labelDialog.getByRole("button", { name: "Save label" }).click();
  assert.equal((await created).status(), 201);
  await labelsSection.getByRole("row").filter({ hasText: "Invoices and refunds" }).waitFor();
  step('Settings -> Labels: "Billing" made (#7c3aed, "Invoices and refunds")');
  await labelsSection.evaluate((el) => el.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: `${cfg.screenshots}/settings-labels.png` });
  await checkAccessibility(page, "settings with labels");

  doing("in Carla's conversation the Labels disclosure ticks Billing");
  await page.goto(dashboard(`/inbox/${cfg.conversationId}`));
  const header = page.locator(".conversation-header");
  await header.getByText("Labels", { exact: true }).click();
  const tick = header.getByRole("checkbox", { name: "Billing" });
  const put = answered(page, "PUT", `/api/conversations/${cfg.conversationId}/labels`);
  // The box shows the conversation's set as the API answered it: ticked once the PUT is in.
  await tick.click();
  assert.equal((await put).status(), 200);
  await header.getByRole("list", { name: "Labels" }).getByText("Billing", { exact: true }).waitFor();
  await page.waitForFunction(() => document.querySelector(".label-picker input[type=checkbox]")?.checked === true);
  await checkAccessibility(page, "conversation with the label picker open");
  const row = page.getByRole("list", { name: "Conversations" }).getByRole("link").filter({ hasText: "Carla Mendes" });
  await row.getByText("Billing", { exact: true }).waitFor();
  step("the label is on the conversation: a chip in its header and in its inbox row");

  doing("the inbox's Label filter shows her conversation alone, and keeps it on reload");
  const labelFilter = page.getByLabel("Label", { exact: true });
  await labelFilter.selectOption({ label: "Billing" });
  await page.waitForURL((url) => url.searchParams.has("label"));
  const rowsNow = page.getByRole("list", { name: "Conversations" }).getByRole("link");
  const deadline = Date.now() + 10_000;
  while ((await rowsNow.count()) !== 1 && Date.now() < deadline) await page.waitForTimeout(100);
  assert.equal(await rowsNow.count(), 1, "one conversation has the label");
  await page.reload();
  await rowsNow.first().waitFor();
  assert.equal(await rowsNow.count(), 1, "the filter is in the URL");
  assert.match(await rowsNow.first().innerText(), /Carla Mendes/);
  step("Label: Billing lists Carla's conversation alone, after a reload too");

  doing("the Priority filter lists the urgent conversation alone; Unread only lists none");
  // The conversation's own Priority control is beside the inbox's: the inbox's is the list's.
  const inbox = page.getByRole("region", { name: "Inbox", exact: true });
  const priorityFilter = inbox.getByLabel("Priority", { exact: true });
  await labelFilter.selectOption({ label: "Any label" });
  await page.waitForURL((url) => !url.searchParams.has("label"));
  await priorityFilter.selectOption({ label: "Urgent" });
  await page.waitForURL((url) => url.searchParams.get("priority") === "urgent");
  await check("one urgent conversation", async () => {
    const until = Date.now() + 10_000;
    while ((await rowsNow.count()) !== 1 && Date.now() < until) await page.waitForTimeout(100);
    assert.equal(await rowsNow.count(), 1);
    assert.match(await rowsNow.first().innerText(), /Carla Mendes/);
  });
  const unread = inbox.getByRole("checkbox", { name: "Unread only" });
  // The box shows the URL's state: ticked once the URL says so.
  await unread.click();
  await page.waitForURL((url) => url.searchParams.get("unread") === "1");
  await page.waitForFunction(() => document.querySelector(".inbox-list input[type=checkbox]")?.checked === true);
  await page.getByText("No conversations match these filters.").waitFor();
  await unread.click();
  await page.waitForURL((url) => !url.searchParams.has("unread"));
  await rowsNow.first().waitFor();
  step("Priority: Urgent lists Carla's conversation alone; Unread only lists none");

  doing('"Save view" keeps the filter as the shared view "Urgent", with its count');
  const views = page.getByRole("region", { name: "Views", exact: true });
  await views.getByRole("button", { name: "Save view" }).click();
  const saveForm = views.getByRole("form", { name: "Save this view" });
  await saveForm.getByLabel("View name", { exact: true }).fill("Urgent");
  await saveForm.getByRole("checkbox", { name: "Share with the workspace" }).check();
  assert.equal(await saveForm.getByLabel("View name", { exact: true }).inputValue(), "Urgent");
  const saved = answered(page, "POST", "/api/views");
  await saveForm.getByRole("button", { name: "Save", exact: true }).click();
  assert.equal((await saved).status(), 201);
  const viewLink = views.getByRole("list", { name: "Saved views" }).getByRole("link", { name: /^Urgent \(shared\) 1 conversation$/ });
  await viewLink.waitFor();
  assert.equal(await viewLink.getAttribute("aria-current"), "page", "the inbox shows the view");
  step('the view "Urgent" is listed, shared, with 1 conversation, marked current');
  await page.screenshot({ path: `${cfg.screenshots}/inbox-views.png` });
  await checkAccessibility(page, "inbox with a saved view");

  doing("from the whole inbox, the view's link brings its filter back");
  await priorityFilter.selectOption({ label: "Any priority" });
  await page.waitForURL((url) => !url.searchParams.has("priority"));
  await page.waitForFunction(() => !document.querySelector('.view-list a[aria-current="page"]'));
  await viewLink.click();
  await page.waitForURL((url) => url.searchParams.get("priority") === "urgent");
  assert.equal(await priorityFilter.inputValue(), "urgent");
  step("the view's link shows Priority: Urgent again");

  doing('a second shared view, "Triage", moved above "Urgent" and back');
  await views.getByRole("button", { name: "Save view" }).click();
  await saveForm.getByLabel("View name", { exact: true }).fill("Triage");
  await saveForm.getByRole("checkbox", { name: "Share with the workspace" }).check();
  const savedSecond = answered(page, "POST", "/api/views");
  await saveForm.getByRole("button", { name: "Save", exact: true }).click();
  assert.equal((await savedSecond).status(), 201);
  const viewList = views.getByRole("list", { name: "Saved views" });
  const viewOrder = async (expected) => {
    await page.waitForFunction(
      (names) => [...document.querySelectorAll(".view-list .view-name")].map((n) => n.textContent).join("|") === names,
      expected.join("|"),
    );
  };
  await viewOrder(["Urgent", "Triage"]);
  const up = viewList.getByRole("button", { name: "Move the view Triage up" });
  assert.equal(await up.getAttribute("aria-disabled"), "false");
  await up.click();
  await viewOrder(["Triage", "Urgent"]);
  assert.equal(await up.getAttribute("aria-disabled"), "true", "Triage is first: it cannot go higher");
  assert.ok(await up.evaluate((button) => document.activeElement === button), "the focus stays on the moved view's button");
  await viewList.getByRole("button", { name: "Move the view Triage down" }).click();
  await viewOrder(["Urgent", "Triage"]);
  step('"Triage" moved up above "Urgent" and down again; the focus stayed with it');

  doing('"Created from" tomorrow lists no conversation; emptied, the three are back');
  await priorityFilter.selectOption({ label: "Any priority" });
  await page.waitForURL((url) => !url.searchParams.has("priority"));
  await listsRows(page, 3);
  await inbox.locator("summary", { hasText: "Dates" }).click();
  const createdFrom = inbox.getByLabel("Created from", { exact: true });
  // Tomorrow in the browser's calendar, and when it starts there: what the API is to be asked.
  const [tomorrow, tomorrowStarts] = await page.evaluate(() => {
    const now = new Date();
    const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
    const day = `${start.getFullYear()}-${String(start.getMonth() + 1).padStart(2, "0")}-${String(start.getDate()).padStart(2, "0")}`;
    return [day, start.toISOString()];
  });
  const fromTomorrow = listed(page, (query) => query.has("createdAfter"));
  await createdFrom.fill(tomorrow);
  await page.waitForURL((url) => url.searchParams.get("created_from") === tomorrow);
  const answer = await fromTomorrow;
  assert.equal(answer.status(), 200);
  assert.equal(new URL(answer.url()).searchParams.get("createdAfter"), tomorrowStarts, "asked from tomorrow's local midnight");
  await inbox.getByText("No conversations match these filters.").waitFor();
  await listsRows(page, 0);
  await inbox.locator("summary", { hasText: "(1 set)" }).waitFor();
  await page.screenshot({ path: `${cfg.screenshots}/inbox-date-filter.png` });
  await checkAccessibility(page, "inbox with a date filter");
  await createdFrom.fill("");
  await page.waitForURL((url) => !url.searchParams.has("created_from"));
  await listsRows(page, 3);
  step(`"Created from ${tomorrow}" asked for createdAfter=${tomorrowStarts} and listed none; emptied, the three are back`);

  doing('"Assigned to" the Owner lists the Owner\'s conversations under All; "Clear filters" ends it');
  await inbox.getByRole("tab", { name: "Mine" }).click();
  await page.waitForURL((url) => url.searchParams.get("tab") === "me");
  const assignedTo = inbox.getByLabel("Assigned to", { exact: true });
  const ownerOption = assignedTo.locator("option", { hasText: "(me)" });
  await ownerOption.waitFor({ state: "attached" });
  const ownerId = await ownerOption.getAttribute("value");
  const byOwner = listed(page, (query) => query.get("assignee") === ownerId);
  await assignedTo.selectOption(ownerId);
  await page.waitForURL((url) => url.searchParams.get("agent") === ownerId && !url.searchParams.has("tab"));
  assert.equal((await byOwner).status(), 200);
  assert.equal(await inbox.getByRole("tab", { name: "All" }).getAttribute("aria-selected"), "true", "one agent's conversations show under All");
  await listsRows(page, 3);
  await page.reload();
  assert.equal(await assignedTo.inputValue(), ownerId, "the agent is in the URL");
  await listsRows(page, 3);
  await inbox.getByRole("button", { name: "Clear filters" }).click();
  await page.waitForURL((url) => !url.searchParams.has("agent"));
  assert.equal(await assignedTo.inputValue(), "");
  assert.equal(await inbox.getByRole("button", { name: "Clear filters" }).count(), 0, "nothing left to clear");
  await listsRows(page, 3);
  step(`"Assigned to" the Owner asked for assignee=${ownerId}: three conversations under All, after a reload too; "Clear filters" ended it`);

  doing("in the contact panel, the Labels disclosure puts Billing on Carla");
  await page.goto(dashboard(`/inbox/${cfg.conversationId}`));
  const panel = page.locator(".contact-panel");
  await panel.getByText("Labels", { exact: true }).click();
  const contactTick = panel.getByRole("checkbox", { name: "Billing" });
  const contactPut = answered(page, "PUT", `/api/contacts/${cfg.contactId}/labels`);
  await contactTick.click();
  assert.equal((await contactPut).status(), 200);
  await panel.getByRole("list", { name: "Labels" }).getByText("Billing", { exact: true }).waitFor();
  await checkAccessibility(page, "contact panel with the label picker open");
  step("Billing is on Carla: a chip in her contact panel");

  doing("axe on every page shown");
  assertNoViolations();
  step(
    "axe found no WCAG 2.1 A/AA violation in the search box, at the found message, in Settings -> Labels, in the open label pickers or in the inbox with its views and its filters",
  );
  progress.allChecksPassed();
} catch (error) {
  exitCode = 1;
  await progress.stopped(error, page, cfg.screenshots);
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);
