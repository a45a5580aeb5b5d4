// Settings -> Webhooks in a real browser (Debian's chromium through playwright-core), against
// the real API and the dashboard. Run by the Rust suite (tests/api/webhooks_browser.rs), which
// starts the API with plain http and 127.0.0.0/8 allowed for endpoints (no worker runs: what is
// asked for stays "pending"), gives the workspace two endpoints as the worker would have left
// them (one failing for two hours, its failed attempt in its log after more successes than a
// page of the log holds; one the product disabled), and passes WEBHOOKS_TEST_CONFIG:
//   { api, dashboard: "http://localhost:D",
//     agent: { email, password },    a verified Owner of the workspace, signing in through /login
//     workspaceName,                  the workspace to open in the picker
//     workspaceToken,                 the Owner's workspace token, to read the API as the page left it
//     endpointUrl,                    the endpoint the Owner adds (http://127.0.0.1:P/...)
//     refusedUrl,                     a URL the API refuses (a private address outside the allowed ranges)
//     failing: { id, url, description, eventId, lastError, responseBody, olderAttempts },
//                                     olderAttempts: the successes logged before its failure
//     disabled: { id, url, description, reason },
//     result: "/abs/file.json",       where the journey writes what it made, for the Rust test
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium" (optional) }
// The journey: the Owner signs in and opens Settings -> Webhooks; the failing endpoint reads
// "Failing since <time> — <last error>" and the disabled one "Disabled — <reason>". The
// failing endpoint's delivery log opens on its first page and loads the older rows on demand
// (with the cursor); it shows the failed attempt (HTTP status, latency, error, and the response
// body behind a disclosure); Retry queues it again: a pending row appears at the top, and the
// log is read again while it stays pending. The Owner adds an endpoint: with a
// refused URL and no event type, the API's messages show beside the URL and the event types
// (the focus on the URL); then with the URL and two types, the signing secret is shown once
// (focused, with the note to store it). The Owner sends a test event (a pending row in its
// log), rotates the secret (the confirmation explains the 24 h overlap; the new secret is shown
// once), disables and enables the endpoint, edits it to receive all events; after a reload no
// secret is on the page; then deletes it (confirmed). With the workspace filled up to its 20
// endpoints over the API, adding one more is refused (409) and the dialog says so; the
// fillers are deleted again. The API is read after each step. The section, the delivery logs
// and the dialogs are screenshotted at desktop and phone sizes and checked with axe (WCAG 2.1
// A/AA).
// Each step prints `ok - ...`; a failed check that later steps do not depend on prints
// `not ok - ...` and the journey goes on, failing at its end; any other failure prints
// `not ok - ...` and exits 1 at once; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { assertNoViolations, DESKTOP, visit, escapeRegExp, journey, signIn } from "./pages.mjs";

const cfg = JSON.parse(process.env.WEBHOOKS_TEST_CONFIG ?? "null");
const required = ["api", "dashboard", "workspaceName", "workspaceToken", "endpointUrl", "refusedUrl", "result", "screenshots"];
if (
  !cfg ||
  required.some((key) => !cfg[key]) ||
  !cfg.agent?.email ||
  !cfg.agent?.password ||
  !cfg.failing?.id ||
  !cfg.failing?.eventId ||
  !Number.isInteger(cfg.failing?.olderAttempts) ||
  !cfg.disabled?.id ||
  !cfg.disabled?.reason
) {
  console.error(
    "not ok - WEBHOOKS_TEST_CONFIG must hold {api, dashboard, agent: {email, password}, workspaceName, workspaceToken, endpointUrl, refusedUrl, failing: {id, url, description, eventId, lastError, responseBody, olderAttempts}, disabled: {id, url, description, reason}, result, screenshots, chromium?}",
  );
  process.exit(2);
}
const TIMEOUT = 20_000;
const run = Date.now().toString(36);
const dashboard = (path) => new URL(path, cfg.dashboard).toString();
const field = (scope, label) => scope.getByLabel(label, { exact: true });
const escape = escapeRegExp;

const progress = journey();
const { step, doing, check } = progress;

/**
 * Screenshots at desktop and phone sizes, each checked with axe (pages.mjs); `target`, when
 * given, is scrolled into view at each size (`block`: where it is put).
 */
async function shot(page, name, target = null, block = "start") {
  await visit(page, cfg.screenshots, name, {
    fullPage: false,
    settle: async () => {
      if (target) await target.evaluate((el, where) => el.scrollIntoView({ block: where }), block);
      await page.waitForTimeout(250);
    },
  });
}

/** The API as the Owner's workspace token reads it. */
async function apiGet(path, status = 200) {
  const response = await fetch(new URL(path, cfg.api), { headers: { Authorization: `Bearer ${cfg.workspaceToken}` } });
  const body = await response.text();
  assert.equal(response.status, status, `GET ${path} answered ${response.status}: ${body}`);
  return body ? JSON.parse(body) : null;
}

/** A request with the Owner's workspace token, asserting its status; the JSON answer, if any. */
async function apiSend(method, path, body, status) {
  const response = await fetch(new URL(path, cfg.api), {
    method,
    headers: { Authorization: `Bearer ${cfg.workspaceToken}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  assert.equal(response.status, status, `${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The element an input's aria-describedby names with the suffix `-error` (TextField's error). */
async function errorOf(page, input) {
  const id = ((await input.getAttribute("aria-describedby")) ?? "").split(" ").find((i) => i.endsWith("-error"));
  assert.ok(id, "the field is described by its error");
  return (await page.locator(`[id="${id}"]`).textContent()) ?? "";
}

/** Waits (up to 5 s) for `locator`'s element to have the focus: it moves after React renders. */
async function waitForFocus(locator, what) {
  const element = await locator.elementHandle();
  await element.waitForElementState("visible");
  await locator.page().waitForFunction((el) => el === document.activeElement, element, { timeout: 5_000 }).catch(() => {
    throw new Error(`${what} does not have the focus`);
  });
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

/** A request whose path ends with `suffix`, by method, answered from now on. */
function answered(page, method, suffix) {
  return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname.endsWith(suffix));
}

let browser;
let page;
let exitCode = 0;
const result = {};
try {
  mkdirSync(cfg.screenshots, { recursive: true });
  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(TIMEOUT);
  page = await context.newPage();
  watch(page, "owner");

  doing("the Owner signs in and opens the workspace");
  await signIn(page, cfg.dashboard, { email: cfg.agent.email, password: cfg.agent.password, workspaceName: cfg.workspaceName });
  step("the Owner signed in through /login and opened the workspace");

  doing("Settings -> Webhooks lists the endpoints with their state");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Webhooks" }).click();
  const section = page.getByRole("region", { name: "Webhooks", exact: true });
  await section.waitFor();
  const list = section.getByRole("list", { name: "Webhook endpoints" });
  const card = (url) => list.getByRole("article", { name: url, exact: true });
  const stateOf = (url) => card(url).locator(".webhook-state");
  const failingCard = card(cfg.failing.url);
  await failingCard.waitFor();
  const failingState = ((await stateOf(cfg.failing.url).textContent()) ?? "").trim();
  assert.match(failingState, new RegExp(`^Failing since .*\\d.* — ${escape(cfg.failing.lastError)}$`), failingState);
  const disabledState = ((await stateOf(cfg.disabled.url).textContent()) ?? "").trim();
  assert.equal(disabledState, `Disabled — ${cfg.disabled.reason}`);
  assert.match((await failingCard.textContent()) ?? "", /All events/);
  assert.equal(await list.getByRole("article").count(), 2);
  await shot(page, "settings-webhooks", section);
  step(`the endpoints read "${failingState}" and "${disabledState}"`);

  doing("the failing endpoint's delivery log shows its failed attempt");
  const failingLogButton = failingCard.getByRole("button", { name: `Delivery log of ${cfg.failing.description}`, exact: true });
  let logRead = answered(page, "GET", `/api/webhooks/${cfg.failing.id}/deliveries`);
  await failingLogButton.click();
  assert.equal((await logRead).status(), 200);
  assert.equal(await failingLogButton.getAttribute("aria-expanded"), "true");
  const failingLog = failingCard.getByRole("table", { name: "Delivery log" });
  await failingLog.waitFor();
  const headers = (await failingLog.getByRole("columnheader").allTextContents()).map((t) => t.trim());
  assert.deepEqual(headers, ["Time", "Event type", "Attempt", "Status", "HTTP status", "Latency", "Error", "Actions"]);
  const logRows = failingLog.locator("tbody tr");
  const total = 1 + cfg.failing.olderAttempts;
  assert.equal(await logRows.count(), 20, "the log's first page: 20 rows");
  assert.equal(await logRows.first().getAttribute("data-status"), "failed", "newest first");
  step(`the failing endpoint's log opened on its first page (20 of ${total} rows, newest first)`);

  doing("the log's older rows load on demand");
  const older = failingCard.getByRole("button", { name: "Load older deliveries", exact: true });
  logRead = answered(page, "GET", `/api/webhooks/${cfg.failing.id}/deliveries`);
  await older.click();
  const olderPage = await logRead;
  assert.equal(olderPage.status(), 200);
  assert.ok(new URL(olderPage.url()).searchParams.get("cursor"), "the older page is asked for with the cursor");
  await failingCard.getByRole("status").filter({ hasText: `${total - 20} older ${total - 20 === 1 ? "delivery" : "deliveries"} loaded.` }).waitFor();
  await logRows.nth(total - 1).waitFor();
  assert.equal(await logRows.count(), total);
  await older.waitFor({ state: "detached" }); // no older page is left
  await check("the focus stays in the log (on its table) when the button goes", async () => {
    await waitForFocus(failingCard.getByRole("region", { name: "Delivery log" }), "the log's table");
  });
  const oldest = (await logRows.last().getByRole("cell").allTextContents()).map((t) => t.trim());
  assert.deepEqual(oldest.slice(1, 5), ["message.created", "1", "Succeeded", "200"]);
  step(`"Load older deliveries" loaded the rest with the cursor: ${total} rows, the oldest a succeeded message.created`);

  doing("the failed attempt shows its status, latency, error and response body");
  const failedRow = failingLog.locator('tbody tr[data-status="failed"]');
  assert.equal(await failedRow.count(), 1);
  const cells = (await failedRow.getByRole("cell").allTextContents()).map((t) => t.trim());
  assert.equal(cells[1], "webhook.test");
  assert.equal(cells[2], "1");
  assert.equal(cells[3], "Failed");
  assert.equal(cells[4], "500");
  assert.equal(cells[5], "132 ms");
  assert.match(cells[6] ?? "", new RegExp(`^${escape(cfg.failing.lastError)}`));
  const bodyDisclosure = failedRow.getByText("Response body", { exact: true });
  const body = failedRow.locator("details pre");
  assert.equal(await body.isVisible(), false, "the response body is behind its disclosure");
  await bodyDisclosure.click();
  await body.waitFor();
  assert.equal(await body.textContent(), cfg.failing.responseBody);
  await shot(page, "webhook-delivery-log-failed", failingCard.locator(".delivery-log"));
  step(`the log shows the failed attempt: webhook.test, attempt 1, Failed, 500, 132 ms, "${cfg.failing.lastError}", and its response body`);

  doing("Retry queues the attempt again: a pending row, and the log is read again while it stays pending");
  const retried = answered(page, "POST", `/deliveries/${await failedRowId(cfg.failing.id)}/retry`);
  await failedRow.getByRole("button", { name: /^Retry webhook\.test, attempt 1, / }).click();
  const retry = await retried;
  assert.equal(retry.status(), 202, `the retry answered ${retry.status()}`);
  assert.equal((await retry.json()).eventId, cfg.failing.eventId, "the same event is sent again");
  await failingCard.getByRole("status").filter({ hasText: "Retry of webhook.test queued" }).waitFor();
  const pendingRow = failingLog.locator('tbody tr[data-status="pending"]');
  await pendingRow.waitFor();
  assert.equal(await failingLog.locator("tbody tr").first().getAttribute("data-status"), "pending", "the new row is at the top");
  const pendingCells = (await pendingRow.getByRole("cell").allTextContents()).map((t) => t.trim());
  assert.deepEqual(pendingCells.slice(1, 6), ["webhook.test", "1", "Pending", "—", "—"]);
  assert.equal(pendingCells[7], "Queued", "a request not sent yet cannot be retried");
  await failingCard.getByText("A delivery is pending: the log refreshes every few seconds.").waitFor();
  logRead = answered(page, "GET", `/api/webhooks/${cfg.failing.id}/deliveries`);
  assert.equal((await logRead).status(), 200, "the log was read again while a row is pending");
  const afterRetry = await apiGet(`/api/webhooks/${cfg.failing.id}/deliveries`);
  assert.equal(afterRetry.deliveries[0].status, "pending", JSON.stringify(afterRetry));
  assert.equal(afterRetry.deliveries[0].eventId, cfg.failing.eventId);
  result.retriedEventId = cfg.failing.eventId;
  step("Retry answered 202 for the same event; a Pending row (Queued) is at the top, and the log was read again while it waits");
  await failingLogButton.click();
  assert.equal(await failingLogButton.getAttribute("aria-expanded"), "false");

  doing("adding an endpoint: the API's refusals show beside the URL and the event types");
  const description = `Order sync ${run}`;
  await section.getByRole("button", { name: "Add endpoint", exact: true }).click();
  let dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
  await dialog.waitFor();
  const url = field(dialog, "Endpoint URL");
  await url.fill(cfg.refusedUrl);
  await field(dialog, "Description").fill(description);
  let saved = answered(page, "POST", "/api/webhooks");
  await dialog.getByRole("button", { name: "Add endpoint", exact: true }).click();
  const refused = await saved;
  assert.equal(refused.status(), 400, `the refused URL answered ${refused.status()}`);
  assert.deepEqual(refused.request().postDataJSON(), { url: cfg.refusedUrl, description, eventTypes: [] });
  // The answer is shown once React has rendered it.
  await dialog.locator('input[aria-invalid="true"]').first().waitFor();
  const urlError = await errorOf(page, url);
  assert.match(urlError, /must not point at/, urlError);
  assert.equal(await url.getAttribute("aria-invalid"), "true");
  const types = dialog.getByRole("group", { name: "Event types" });
  const typesErrorText = (await types.locator(".field-error").textContent()) ?? "";
  assert.match(typesErrorText, /at least one type/, typesErrorText);
  const describedBy = ((await types.getAttribute("aria-describedby")) ?? "").split(" ");
  const errorId = await types.locator(".field-error").getAttribute("id");
  assert.ok(errorId && describedBy.includes(errorId), "the event types' error is tied to their group");
  await waitForFocus(url, "the URL, the first field refused,");
  await shot(page, "webhook-add-refused");
  await shot(page, "webhook-add-refused-types", types.locator(".field-error"), "center");
  step(`the API refused ${cfg.refusedUrl} and no event type (400): "${urlError}" beside the URL, "${typesErrorText}" beside the event types`);

  doing("adding an endpoint with two event types: its secret is shown once");
  await url.fill(cfg.endpointUrl);
  const allEvents = field(dialog, "All events");
  assert.equal(await allEvents.isChecked(), false);
  await field(dialog, "message.created").check();
  await field(dialog, "ticket.created").check();
  saved = answered(page, "POST", "/api/webhooks");
  await dialog.getByRole("button", { name: "Add endpoint", exact: true }).click();
  const created = await saved;
  assert.equal(created.status(), 201, `adding answered ${created.status()}`);
  assert.deepEqual(created.request().postDataJSON(), { url: cfg.endpointUrl, description, eventTypes: ["message.created", "ticket.created"] });
  const endpoint = await created.json();
  result.endpointId = endpoint.id;
  assert.match(endpoint.secret, /^whsec_/);
  await dialog.waitFor({ state: "hidden" });
  const ours = card(cfg.endpointUrl);
  await ours.waitFor();
  const secretField = field(ours, `Signing secret of ${description} (shown once: copy it now)`);
  await secretField.waitFor();
  assert.equal(await secretField.inputValue(), endpoint.secret, "the secret shown is the API's");
  assert.equal(await secretField.getAttribute("readonly"), "");
  await check("the secret has the focus, with the note to store it", async () => {
    await waitForFocus(secretField, "the secret");
    assert.match((await ours.locator(".secret").textContent()) ?? "", /Store it with the receiver now/);
  });
  await check("the new endpoint reads Healthy, with its description and two types", async () => {
    assert.equal(((await ours.locator(".webhook-state").textContent()) ?? "").trim(), "Healthy");
    assert.match((await ours.textContent()) ?? "", /message\.created, ticket\.created/);
    assert.match((await ours.textContent()) ?? "", new RegExp(escape(description)));
  });
  const listed = (await apiGet("/api/webhooks")).webhooks.find((w) => w.id === endpoint.id);
  assert.ok(listed, "the API lists the endpoint");
  assert.deepEqual(listed.eventTypes, ["message.created", "ticket.created"]);
  assert.equal(listed.url, cfg.endpointUrl);
  assert.equal(listed.description, description);
  assert.equal(listed.secret, undefined, "the list never carries the secret");
  await shot(page, "webhook-secret", ours);
  step(`the endpoint ${cfg.endpointUrl} was added (201) for message.created and ticket.created; its secret whsec_… is shown once`);

  doing("sending a test event: a pending row in the endpoint's log");
  const name = description;
  const tested = answered(page, "POST", `/api/webhooks/${endpoint.id}/test`);
  await ours.getByRole("button", { name: `Send test event to ${name}`, exact: true }).click();
  const test = await tested;
  assert.equal(test.status(), 202, `the test answered ${test.status()}`);
  const { eventId } = await test.json();
  result.testEventId = eventId;
  await ours.getByRole("status").filter({ hasText: "Test event queued: it shows in the delivery log." }).waitFor();
  const ourLogButton = ours.getByRole("button", { name: `Delivery log of ${name}`, exact: true });
  await ourLogButton.click();
  const ourLog = ours.getByRole("table", { name: "Delivery log" });
  const testRow = ourLog.locator('tbody tr[data-status="pending"]');
  await testRow.waitFor();
  const testCells = (await testRow.getByRole("cell").allTextContents()).map((t) => t.trim());
  assert.deepEqual(testCells.slice(1, 8), ["webhook.test", "1", "Pending", "—", "—", "Not sent yet", "Queued"]);
  const log = await apiGet(`/api/webhooks/${endpoint.id}/deliveries`);
  assert.equal(log.deliveries.length, 1, JSON.stringify(log));
  assert.equal(log.deliveries[0].eventId, eventId);
  assert.equal(log.deliveries[0].status, "pending");
  assert.equal(log.deliveries[0].eventType, "webhook.test");
  await shot(page, "webhook-test-pending", ours.locator(".delivery-log"));
  step(`the test event ${eventId} was queued (202); the log shows it Pending (no worker runs here)`);
  await ourLogButton.click();

  doing("rotating the secret: the confirmation explains the overlap; the new secret is shown once");
  await ours.getByRole("button", { name: `Rotate secret of ${name}`, exact: true }).click();
  dialog = page.getByRole("dialog", { name: `Rotate the secret of ${name}?` });
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? "", /keeps signing deliveries beside the new one for 24 hours/);
  await shot(page, "webhook-rotate-confirm");
  const rotating = answered(page, "POST", `/api/webhooks/${endpoint.id}/rotate-secret`);
  await dialog.getByRole("button", { name: "Rotate secret", exact: true }).click();
  const rotated = await rotating;
  assert.equal(rotated.status(), 200, `the rotation answered ${rotated.status()}`);
  const { secret: newSecret } = await rotated.json();
  assert.match(newSecret, /^whsec_/);
  assert.notEqual(newSecret, endpoint.secret);
  await dialog.waitFor({ state: "hidden" });
  await page.waitForFunction((value) => [...document.querySelectorAll(".secret input")].some((i) => i.value === value), newSecret);
  assert.equal(await secretField.inputValue(), newSecret, "the new secret replaces the first");
  assert.match((await ours.locator(".secret").textContent()) ?? "", /The previous secret keeps signing beside this one until /);
  await check("the new secret has the focus", async () => {
    await waitForFocus(secretField, "the new secret");
  });
  step("the secret was rotated (200): a new whsec_… is shown once, with the 24 h overlap explained");

  doing("disabling and enabling the endpoint");
  let patched = answered(page, "PATCH", `/api/webhooks/${endpoint.id}`);
  await ours.getByRole("button", { name: `Disable ${name}`, exact: true }).click();
  let patch = await patched;
  assert.equal(patch.status(), 200);
  assert.deepEqual(patch.request().postDataJSON(), { enabled: false });
  await ours.getByRole("status").filter({ hasText: "Endpoint disabled" }).waitFor();
  await ours.locator(".webhook-state").filter({ hasText: /^Disabled$/ }).waitFor();
  let now = await apiGet(`/api/webhooks/${endpoint.id}`);
  assert.equal(now.enabled, false);
  assert.equal(now.state, "disabled");
  assert.equal(now.disabledReason ?? null, null, "disabled by hand: no reason");
  patched = answered(page, "PATCH", `/api/webhooks/${endpoint.id}`);
  await ours.getByRole("button", { name: `Enable ${name}`, exact: true }).click();
  patch = await patched;
  assert.equal(patch.status(), 200);
  assert.deepEqual(patch.request().postDataJSON(), { enabled: true });
  await ours.getByRole("status").filter({ hasText: "Endpoint enabled." }).waitFor();
  await ours.locator(".webhook-state").filter({ hasText: /^Healthy$/ }).waitFor();
  await ours.getByRole("button", { name: `Disable ${name}`, exact: true }).waitFor();
  now = await apiGet(`/api/webhooks/${endpoint.id}`);
  assert.equal(now.enabled, true);
  assert.equal(now.state, "healthy");
  step('the endpoint was disabled ("Disabled") and enabled again ("Healthy"), as the API has it');

  doing("editing the endpoint to receive all events");
  await ours.getByRole("button", { name: `Edit ${name}`, exact: true }).click();
  dialog = page.getByRole("dialog", { name: `Edit ${name}` });
  await dialog.waitFor();
  assert.equal(await field(dialog, "Endpoint URL").inputValue(), cfg.endpointUrl);
  assert.equal(await field(dialog, "message.created").isChecked(), true);
  assert.equal(await field(dialog, "ticket.created").isChecked(), true);
  assert.equal(await field(dialog, "contact.created").isChecked(), false);
  await field(dialog, "All events").check();
  assert.equal(await field(dialog, "contact.created").isDisabled(), true, "All events stands for every type");
  assert.equal(await field(dialog, "contact.created").isChecked(), true);
  const renamed = `${description} (all)`;
  await field(dialog, "Description").fill(renamed);
  await shot(page, "webhook-edit");
  patched = answered(page, "PATCH", `/api/webhooks/${endpoint.id}`);
  await dialog.getByRole("button", { name: "Save endpoint", exact: true }).click();
  patch = await patched;
  assert.equal(patch.status(), 200);
  assert.deepEqual(patch.request().postDataJSON(), { url: cfg.endpointUrl, description: renamed, eventTypes: ["*"] });
  await dialog.waitFor({ state: "hidden" });
  await ours.getByText("All events", { exact: true }).waitFor();
  now = await apiGet(`/api/webhooks/${endpoint.id}`);
  assert.deepEqual(now.eventTypes, ["*"]);
  assert.equal(now.description, renamed);
  step(`the endpoint was edited (200): "${renamed}", all events`);

  doing("after a reload no secret is on the page");
  await page.reload();
  await section.waitFor();
  await ours.waitFor();
  assert.equal(await section.locator(".secret").count(), 0, "no secret field after a reload");
  const html = await page.content();
  assert.ok(!html.includes(endpoint.secret) && !html.includes(newSecret), "neither secret is anywhere on the page");
  step("after a reload, neither secret is on the page: each was shown once");

  doing("deleting the endpoint, confirmed");
  await ours.getByRole("button", { name: `Delete ${renamed}`, exact: true }).click();
  dialog = page.getByRole("dialog", { name: `Delete ${renamed}?` });
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? "", /This cannot be undone/);
  await shot(page, "webhook-delete-confirm");
  const deleting = answered(page, "DELETE", `/api/webhooks/${endpoint.id}`);
  await dialog.getByRole("button", { name: "Delete endpoint", exact: true }).click();
  const deleted = await deleting;
  assert.equal(deleted.status(), 204, `deleting answered ${deleted.status()}`);
  await ours.waitFor({ state: "detached" });
  await section.getByRole("status").filter({ hasText: `Endpoint ${cfg.endpointUrl} deleted.` }).waitFor();
  await check('the focus went back to "Add endpoint"', async () => {
    await waitForFocus(section.getByRole("button", { name: "Add endpoint", exact: true }), '"Add endpoint"');
  });
  assert.equal(await list.getByRole("article").count(), 2, "the seeded endpoints remain");
  await apiGet(`/api/webhooks/${endpoint.id}`, 404);
  await shot(page, "settings-webhooks-after", section);
  step("the endpoint was deleted (204) after the confirmation; the API no longer has it");

  doing("at the workspace's limit of endpoints, adding one says so");
  const filled = [];
  for (let n = await list.getByRole("article").count(); n < 20; n++) {
    const made = await apiSend("POST", "/api/webhooks", { url: `https://hooks.example.com/filler-${run}-${n}`, eventTypes: ["*"] }, 201);
    filled.push(made.id);
  }
  await section.getByRole("button", { name: "Add endpoint", exact: true }).click();
  dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
  await dialog.waitFor();
  await field(dialog, "Endpoint URL").fill(cfg.endpointUrl);
  await field(dialog, "All events").check();
  saved = answered(page, "POST", "/api/webhooks");
  await dialog.getByRole("button", { name: "Add endpoint", exact: true }).click();
  const limited = await saved;
  assert.equal(limited.status(), 409, `a 21st endpoint answered ${limited.status()}`);
  const limitAlert = dialog.getByRole("alert").filter({ hasText: "Endpoint limit reached" });
  await limitAlert.waitFor();
  const limitText = ((await limitAlert.textContent()) ?? "").trim();
  assert.match(limitText, /^Endpoint limit reached — .*20 webhook endpoints/, limitText);
  await shot(page, "webhook-limit", limitAlert, "center");
  await dialog.getByRole("button", { name: "Close", exact: true }).click();
  await dialog.waitFor({ state: "hidden" });
  for (const id of filled) await apiSend("DELETE", `/api/webhooks/${id}`, null, 204);
  step(`a 21st endpoint was refused (409), said in the dialog: "${limitText}"`);

  doing("no resource was refused by a Content-Security-Policy");
  assert.deepEqual(refusedByCsp, []);
  step("nothing was refused under the dashboard's Content-Security-Policy");

  doing("axe on every page shown");
  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on the Webhooks section, its delivery logs and dialogs");

  writeFileSync(cfg.result, JSON.stringify(result));

  progress.allChecksPassed();
} catch (error) {
  exitCode = 1;
  await progress.stopped(error, page, cfg.screenshots);
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);

/** The id of the endpoint's failed attempt, as the API lists it. */
async function failedRowId(webhookId) {
  const { deliveries } = await apiGet(`/api/webhooks/${webhookId}/deliveries`);
  const row = deliveries.find((d) => d.status === "failed");
  assert.ok(row, `a failed attempt is in the log: ${JSON.stringify(deliveries)}`);
  return row.id;
}
