// Settings -> Audit log in a real browser (Debian's chromium through playwright-core), against
// the real API and the dashboard. Run by the Rust suite (tests/api/audit_browser.rs), which
// starts the API and the dashboard, makes a verified Owner with a workspace and a member who
// joined it as an agent through an invitation, and passes AUDIT_TEST_CONFIG:
//   { api, dashboard: "http://localhost:D",
//     owner: { email, password, name, userId },   a verified Owner, signing in through /login
//     workspaceName,                               the workspace to open in the picker
//     workspaceToken,                              the Owner's workspace token, to read the log over the API
//     member: { userId, name, displayName },       an agent of the workspace (name: the account's full name)
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium" (optional) }
// The journey: the Owner signs in and opens the workspace; Settings -> Audit log shows, newest
// first, the Owner's own sign-in ("Signed in", by the Owner's name, with an IP address and the
// exact time in the title); in Team the Owner makes the member an Owner; after a reload of
// Settings the log's newest entry is "Role changed" on "Member <name> (<email>)" with
// "role: Agent → Owner". Filtered by that action (and then by the Owner as "Who", and by
// today's date), the table holds that one entry; a "To" date before the "From" date is refused
// beside "To" without asking the API. "Export CSV" fetches the log with `Accept: text/csv`,
// the filters and the workspace token, and downloads audit-log.csv: its header is the API's
// (`id,at,actor_kind,actor_id,actor_name,ip,action,...`) and its one row is the role change.
// "Clear filters" brings every entry back. The section is screenshotted at desktop and phone
// sizes, filtered and not, and checked with axe (WCAG 2.1 A/AA).
// Each step prints `ok - ...`; a failed check that later steps do not depend on prints
// `not ok - ...` and the journey goes on, failing at its end; any other failure prints
// `not ok - ...` and exits 1 at once; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { assertNoViolations, DESKTOP, visit, journey, signIn } from "./pages.mjs";

const cfg = JSON.parse(process.env.AUDIT_TEST_CONFIG ?? "null");
const configured =
  ["api", "dashboard", "workspaceName", "workspaceToken", "screenshots"].every((key) => cfg?.[key]) &&
  ["email", "password", "name", "userId"].every((key) => cfg?.owner?.[key]) &&
  ["userId", "name", "displayName"].every((key) => cfg?.member?.[key]);
if (!configured) {
  console.error(
    "not ok - AUDIT_TEST_CONFIG must hold {api, dashboard, owner: {email, password, name, userId}, workspaceName, workspaceToken, member: {userId, name, displayName}, screenshots, chromium?}",
  );
  process.exit(2);
}
const TIMEOUT = 20_000;
const CSV_HEADER = "id,at,actor_kind,actor_id,actor_name,ip,action";
const dashboard = (path) => new URL(path, cfg.dashboard).toString();

const progress = journey();
const { step, doing, check } = progress;

/** Screenshots at desktop and phone sizes, each checked with axe (pages.mjs), the Audit log section at the top. */
async function shot(page, name) {
  const section = page.getByRole("region", { name: "Audit log", exact: true });
  await visit(page, cfg.screenshots, name, {
    fullPage: false,
    settle: async () => {
      await page.waitForTimeout(250);
      await section.evaluate((el) => el.scrollIntoView({ block: "start" }));
    },
  });
}

/** The API as the Owner's workspace token reads it. */
async function apiGet(path) {
  const response = await fetch(new URL(path, cfg.api), { headers: { Authorization: `Bearer ${cfg.workspaceToken}` } });
  const body = await response.text();
  assert.equal(response.status, 200, `GET ${path} answered ${response.status}: ${body}`);
  return JSON.parse(body);
}

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

/** The next list read of the audit log (JSON, not the CSV export) whose query satisfies `test`. */
function logRead(page, test = () => true) {
  return page.waitForResponse((r) => {
    const url = new URL(r.url());
    return (
      r.request().method() === "GET" &&
      url.pathname === "/api/audit-log" &&
      !(r.request().headers().accept ?? "").includes("text/csv") &&
      test(url.searchParams)
    );
  });
}

/** The body rows of the entries' table (not its header row). */
function entryRows(table) {
  return table.locator("tbody tr");
}

/** A row's cells as text, by column: time, who, action, target, IP address, changes. */
async function cells(row) {
  const texts = await row.locator("th, td").allInnerTexts();
  assert.equal(texts.length, 6, `six cells in a row: ${JSON.stringify(texts)}`);
  const [time, who, action, target, ip, changes] = texts.map((t) => t.trim());
  return { time, who, action, target, ip, changes };
}

/** Waits until the table is shown with exactly `count` rows (a new filter's page replaces it). */
async function rowsAre(table, count) {
  const deadline = Date.now() + TIMEOUT;
  for (;;) {
    const shown = (await table.isVisible()) ? await entryRows(table).count() : -1;
    if (shown === count) return;
    assert.ok(Date.now() < deadline, `the table holds ${count} row(s), not ${shown === -1 ? "none (no table)" : shown}`);
    await page.waitForTimeout(100);
  }
}

/** "just now" or "N minutes ago": an entry made during this journey. */
const RECENT = /^(just now|\d+ minutes? ago)$/;

/** The workspace token of the tab's session (sessionStorage), as every API call sends it. */
function sessionToken() {
  return page.evaluate(() => JSON.parse(sessionStorage.getItem("supportdesk.dashboard.session") ?? "null")?.workspace?.token ?? null);
}

let browser;
let page;
let exitCode = 0;
try {
  mkdirSync(cfg.screenshots, { recursive: true });
  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
  context.setDefaultTimeout(TIMEOUT);
  page = await context.newPage();
  watch(page, "owner");

  doing("the Owner signs in and opens the workspace");
  const selected = answered(page, "POST", "/select");
  await signIn(page, cfg.dashboard, { email: cfg.owner.email, password: cfg.owner.password, workspaceName: cfg.workspaceName });
  assert.equal((await selected).status(), 200, "the workspace was selected: a workspace token was issued");
  step("the Owner signed in through /login and opened the workspace (a workspace token was issued: a sign-in entry)");

  doing("Settings -> Audit log shows the Owner's own sign-in, newest first");
  const mainNav = page.getByRole("navigation", { name: "Main" });
  let read = logRead(page);
  await mainNav.getByRole("link", { name: "Settings" }).click();
  await page.waitForURL(/\/settings$/);
  assert.equal((await read).status(), 200, "the Owner may read the log");
  const section = page.getByRole("region", { name: "Audit log", exact: true });
  await section.waitFor();
  const table = section.getByRole("table", { name: "Audit log entries, newest first" });
  await table.waitFor();
  const headers = (await table.locator("thead th").allInnerTexts()).map((t) => t.trim().toLowerCase());
  assert.deepEqual(headers, ["time", "who", "action", "target", "ip address", "changes"]);
  const newest = entryRows(table).first();
  const signedIn = await cells(newest);
  assert.equal(signedIn.action, "Signed in", `the newest entry is the sign-in just made: ${JSON.stringify(signedIn)}`);
  assert.equal(signedIn.who, cfg.owner.name, "by the Owner, by name, without a badge");
  assert.equal(signedIn.target, "Workspace");
  assert.equal(signedIn.changes, "role: Owner");
  assert.match(signedIn.ip, /^[0-9a-f.:]+$/i, `an IP address: ${signedIn.ip}`);
  assert.match(signedIn.time, RECENT);
  const time = newest.locator("time");
  const exact = (await time.getAttribute("title")) ?? "";
  assert.match(exact, new RegExp(String(new Date().getFullYear())), `the exact time is in the title: ${exact}`);
  assert.match(exact, /\d{1,2}:\d{2}:\d{2}/, `to the second: ${exact}`);
  assert.ok(!Number.isNaN(Date.parse((await time.getAttribute("datetime")) ?? "")), "a machine-readable time");
  step(`the log's newest entry: "Signed in" by ${cfg.owner.name} from ${signedIn.ip}, "just now" (title "${exact}")`);
  await check('the count is announced ("N entries.")', async () => {
    await section.getByRole("status").filter({ hasText: /^\d+ entr(y|ies)\.$/ }).waitFor({ timeout: 5_000 });
  });
  await shot(page, "settings-audit-log");

  doing("in Team, the Owner makes the member an Owner");
  await mainNav.getByRole("link", { name: "Team" }).click();
  await page.waitForURL(/\/team$/);
  const roleSelect = page.getByLabel(`Role of ${cfg.member.displayName}`, { exact: true });
  await roleSelect.waitFor();
  assert.equal(await roleSelect.inputValue(), "agent", "the member is an agent");
  const changed = answered(page, "PUT", "/role");
  await roleSelect.selectOption("admin");
  const roleAnswer = await changed;
  assert.equal(roleAnswer.status(), 200, `the role change answered ${roleAnswer.status()}`);
  await page.getByRole("status").filter({ hasText: `${cfg.member.displayName} is now Owner.` }).waitFor();
  step(`${cfg.member.displayName} is now an Owner (PUT /api/agents/{id}/role, 200)`);

  doing("after a reload of Settings, the role change is the log's newest entry");
  await mainNav.getByRole("link", { name: "Settings" }).click();
  await page.waitForURL(/\/settings$/);
  read = logRead(page);
  await page.reload();
  assert.equal((await read).status(), 200);
  await table.waitFor();
  const roleRow = entryRows(table).filter({ hasText: "Role changed" });
  await roleRow.first().waitFor();
  const role = await cells(entryRows(table).first());
  assert.equal(role.action, "Role changed", `the newest entry is the role change: ${JSON.stringify(role)}`);
  assert.equal(role.who, cfg.owner.name);
  assert.match(role.target, new RegExp(`^Member ${cfg.member.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(.+@.+\\)$`), `the member by name and email: ${role.target}`);
  assert.equal(role.changes, "role: Agent → Owner");
  assert.match(role.time, RECENT);
  step(`after a reload the newest entry reads "Role changed" by ${cfg.owner.name}: "${role.target}", "${role.changes}"`);

  doing("the API holds the same entry");
  const recorded = await apiGet("/api/audit-log?action=member.role_changed");
  assert.equal(recorded.entries.length, 1, JSON.stringify(recorded));
  const entry = recorded.entries[0];
  assert.equal(entry.actor.kind, "user");
  assert.equal(entry.actor.id, cfg.owner.userId);
  assert.deepEqual(entry.target, { type: "member", id: cfg.member.userId });
  assert.deepEqual(entry.changes.role, { from: "agent", to: "admin" });
  step(`GET /api/audit-log?action=member.role_changed: one entry, the Owner (${cfg.owner.userId}) on the member (${cfg.member.userId}), agent -> admin`);

  doing("filtered by the action, the table holds that one entry");
  const filters = section.getByRole("group", { name: "Filter the audit log" });
  const actionFilter = filters.getByLabel("Action", { exact: true });
  assert.equal(await actionFilter.inputValue(), "", '"All actions" at first');
  read = logRead(page, (q) => q.get("action") === "member.role_changed");
  await actionFilter.selectOption({ label: "Role changed" });
  assert.equal((await read).status(), 200);
  await rowsAre(table, 1);
  assert.equal((await cells(entryRows(table).first())).action, "Role changed");
  await section.getByRole("status").filter({ hasText: "1 entry matches." }).waitFor();
  step('filtered by "Role changed" (action=member.role_changed): one row, "1 entry matches." announced');

  doing("filtered also by the Owner as Who, and by today's date");
  const who = filters.getByLabel("Who", { exact: true });
  read = logRead(page, (q) => q.get("actor") === cfg.owner.userId && q.get("action") === "member.role_changed");
  await who.selectOption(cfg.owner.userId);
  assert.equal((await read).status(), 200);
  await rowsAre(table, 1);
  const today = await page.evaluate(() => {
    const d = new Date();
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  });
  read = logRead(page, (q) => q.has("from") && q.get("actor") === cfg.owner.userId);
  await filters.getByLabel("From", { exact: true }).fill(today);
  const withFrom = await read;
  const from = new URL(withFrom.url()).searchParams.get("from");
  assert.ok(Date.parse(from) <= Date.now() && Date.now() - Date.parse(from) <= 24 * 3600 * 1000, `from is the start of today: ${from}`);
  await rowsAre(table, 1);
  step(`Who = ${cfg.owner.name} (actor=${cfg.owner.userId}) and From = ${today} (from=${from}): still the one row`);

  await check('a "To" date before "From" is refused beside "To", without asking the API', async () => {
    let asked = 0;
    const count = (r) => {
      if (new URL(r.url()).pathname === "/api/audit-log") asked += 1;
    };
    page.on("request", count);
    const to = filters.getByLabel("To", { exact: true });
    const yesterday = await page.evaluate(() => {
      const d = new Date();
      d.setDate(d.getDate() - 1);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
    });
    await to.fill(yesterday);
    assert.equal(await to.getAttribute("aria-invalid"), "true");
    const errorId = ((await to.getAttribute("aria-describedby")) ?? "").split(" ").find((id) => id.endsWith("-error"));
    assert.ok(errorId, "To is described by its error");
    assert.match((await page.locator(`[id="${errorId}"]`).textContent()) ?? "", /before the start date/);
    assert.equal(await section.getByRole("button", { name: "Export CSV" }).isDisabled(), true, "no export of a range that runs backwards");
    await page.waitForTimeout(500);
    page.off("request", count);
    assert.equal(asked, 0, "the API was not asked");
    read = logRead(page, (q) => q.has("to"));
    await to.fill(today);
    assert.equal((await read).status(), 200);
    assert.equal(await to.getAttribute("aria-invalid"), null);
    await rowsAre(table, 1);
  });

  doing("Export CSV downloads the filtered log, fetched with the workspace token");
  const asked = page.waitForRequest(
    (r) => r.method() === "GET" && new URL(r.url()).pathname === "/api/audit-log" && (r.headers().accept ?? "").includes("text/csv"),
  );
  const downloading = page.waitForEvent("download");
  await section.getByRole("button", { name: "Export CSV" }).click();
  const request = await asked;
  const sent = await request.allHeaders();
  const token = await sessionToken();
  assert.ok(token, "the tab holds a workspace token");
  assert.equal(sent.authorization, `Bearer ${token}`, "the export carries the workspace token, as every API call does");
  const exportQuery = new URL(request.url()).searchParams;
  assert.equal(exportQuery.get("action"), "member.role_changed", "with the action filter");
  assert.equal(exportQuery.get("actor"), cfg.owner.userId, "with the Who filter");
  assert.ok(exportQuery.has("from") && exportQuery.has("to"), "with the dates");
  assert.equal(exportQuery.has("cursor") || exportQuery.has("limit"), false, "every matching entry, not a page");
  const exportAnswer = await request.response();
  assert.equal(exportAnswer?.status(), 200);
  const download = await downloading;
  assert.equal(download.suggestedFilename(), "audit-log.csv");
  const path = await download.path();
  const csv = readFileSync(path, "utf8");
  assert.ok(csv.startsWith(CSV_HEADER), `the CSV starts with the API's header: ${csv.slice(0, 120)}`);
  const lines = csv.trim().split(/\r?\n/);
  assert.equal(lines.length, 2, `the header and the one entry: ${csv}`);
  assert.ok(lines[1].includes(",member.role_changed,"), lines[1]);
  assert.ok(lines[1].includes(cfg.owner.userId), lines[1]);
  await section.getByRole("status").filter({ hasText: /^audit-log\.csv downloaded/ }).waitFor();
  step(`"Export CSV" downloaded audit-log.csv (Accept: text/csv, the filters, the bearer token): "${CSV_HEADER}…" and the role change`);
  await shot(page, "settings-audit-log-filtered");

  doing("Clear filters brings every entry back");
  await section.getByRole("button", { name: "Clear filters" }).click();
  await entryRows(table).filter({ hasText: "Signed in" }).first().waitFor();
  assert.ok((await entryRows(table).count()) >= 3, "the sign-ins and the role change, at least");
  assert.equal(await actionFilter.inputValue(), "");
  assert.equal(await who.inputValue(), "");
  assert.equal(await section.getByRole("button", { name: "Clear filters" }).count(), 0, "nothing left to clear");
  step(`"Clear filters": ${await entryRows(table).count()} entries again, the filters back to "All actions" and "Any"`);
  await check("the member's joining is in the log, by the member", async () => {
    const joined = await cells(entryRows(table).filter({ hasText: "Member joined" }).first());
    assert.equal(joined.who, cfg.member.name);
    assert.match(joined.changes, /role: Agent/);
  });

  doing("no resource was refused by a Content-Security-Policy");
  assert.deepEqual(refusedByCsp, []);
  step("nothing was refused under the dashboard's Content-Security-Policy");

  doing("axe on every page shown");
  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on Settings -> Audit log, filtered or not, at desktop and phone sizes");

  progress.allChecksPassed();
} catch (error) {
  exitCode = 1;
  await progress.stopped(error, page, cfg.screenshots);
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);
