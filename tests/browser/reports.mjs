// Reports in a real browser (Debian's chromium through playwright-core), against the real API
// and the dashboard. Run by the Rust suite, which starts the API and the dashboard, makes a
// verified Owner with a workspace holding conversations, replies and ratings made during the
// last 30 days, and passes REPORTS_TEST_CONFIG:
//   { api, dashboard: "http://localhost:D",
//     owner: { email, password, name },           a verified Owner, signing in through /login
//     workspaceName,                               the workspace to open in the picker
//     workspaceToken,                              the Owner's workspace token, to read the reports over the API
//     expected: { created, resolved, reopened,     the last 30 days' volume (all channels, every agent),
//                 firstResponses,                  first responses counted in them,
//                 ratings, satisfied },            and ratings, of which `satisfied` were 4 or 5
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium" (optional) }
// The journey: the Owner signs in, opens the workspace and Reports from the main navigation.
// With the default filters (the last 30 days, by day, every channel) the page asks the API
// for its default range (no from/to), and shows: the volume's totals in the "Total" row of its
// table (under "Show table") and in its summary; the first responses' count in the first
// response table's total; the CSAT distribution's total ratings and, among them, the satisfied
// ones (4 and 5) in the table and the summary; the heatmap (a table of 7 days of 24 hours,
// each cell's count in its text and title); the per-agent table. "Business hours only" asks
// every report again with businessHours=true (counts stay, the range says so); Channel "Chat"
// asks with channel=chat, and the volume's totals are the API's for that question. "Download
// CSV" of the volume fetches it with `Accept: text/csv`, the filters and the workspace token,
// and downloads volume-<from>-<to>.csv whose header is `period,created,resolved,reopened`. The
// page is screenshotted at desktop and phone sizes, before and after the filters, and checked
// with axe (WCAG 2.1 A/AA).
// Each step prints `ok - ...`; a failed check that later steps do not depend on prints
// `not ok - ...` and the journey goes on, failing at its end; any other failure prints
// `not ok - ...` and exits 1 at once; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { assertNoViolations, DESKTOP, visit, journey, signIn } from "./pages.mjs";

const cfg = JSON.parse(process.env.REPORTS_TEST_CONFIG ?? "null");
const EXPECTED = ["created", "resolved", "reopened", "firstResponses", "ratings", "satisfied"];
const configured =
  ["api", "dashboard", "workspaceName", "workspaceToken", "screenshots"].every((key) => cfg?.[key]) &&
  ["email", "password", "name"].every((key) => cfg?.owner?.[key]) &&
  EXPECTED.every((key) => Number.isInteger(cfg?.expected?.[key]));
if (!configured) {
  console.error(
    "not ok - REPORTS_TEST_CONFIG must hold {api, dashboard, owner: {email, password, name}, workspaceName, workspaceToken, expected: {created, resolved, reopened, firstResponses, ratings, satisfied}, screenshots, chromium?}",
  );
  process.exit(2);
}
const TIMEOUT = 20_000;
const VOLUME_CSV_HEADER = "period,created,resolved,reopened";
const expected = cfg.expected;

const progress = journey();
const { step, doing, check } = progress;

/** Screenshots of the whole page at desktop and phone sizes, each checked with axe (pages.mjs). */
async function shot(page, name) {
  await visit(page, cfg.screenshots, name, {
    settle: async () => {
      // The charts follow their container's width.
      await page.waitForTimeout(400);
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

/** The next JSON read (not a CSV download) of `/api/reports/<metric>` whose query satisfies `test`. */
function reportRead(page, metric, test = () => true) {
  return page.waitForResponse((r) => {
    const url = new URL(r.url());
    return (
      r.request().method() === "GET" &&
      url.pathname === `/api/reports/${metric}` &&
      !(r.request().headers().accept ?? "").includes("text/csv") &&
      test(url.searchParams)
    );
  });
}

/** A report's section, by its heading. */
function section(page, title) {
  return page.getByRole("region", { name: title, exact: true });
}

/** Waits until `region` is no longer busy (its figures are this question's). */
async function settled(page, region) {
  const deadline = Date.now() + TIMEOUT;
  for (;;) {
    if ((await region.getAttribute("aria-busy")) === null) return;
    assert.ok(Date.now() < deadline, "the section stays busy");
    await page.waitForTimeout(100);
  }
}

/** A number as a table shows it ("1,234"). */
const number = (text) => Number(text.trim().replace(/,/g, ""));

/** A table's total row, by column (the first is its name, "Total"). */
async function totalRow(table) {
  return (await table.locator("tfoot tr").first().locator("th, td").allInnerTexts()).map((t) => t.trim());
}

/** Opens a section's folded table ("Show table") and returns it, found by its caption. */
async function openTable(region, caption) {
  const details = region.locator("details").filter({ has: region.page().locator("summary", { hasText: "Show table" }) }).first();
  if ((await details.getAttribute("open")) === null) await details.locator("summary").click();
  const table = region.getByRole("table", { name: caption });
  await table.waitFor();
  return table;
}

/** The volume table's totals: created, resolved, reopened (all 0 when the page says there were none). */
async function volumeTotals(region) {
  if ((await region.getByText("No conversations in this range.", { exact: true }).count()) > 0) return { created: 0, resolved: 0, reopened: 0 };
  const table = await openTable(region, /^Conversations per (day|week|month)$/);
  const [name, created, resolved, reopened] = await totalRow(table);
  assert.equal(name, "Total");
  return { created: number(created), resolved: number(resolved), reopened: number(reopened) };
}

const countText = (n, one, other) => `${n.toLocaleString("en-US")} ${n === 1 ? one : other}`;

/** The volume summary the page writes for `total`. */
function volumeSentence(total) {
  if (total.created === 0 && total.resolved === 0 && total.reopened === 0) return "No conversations in this range.";
  return `${countText(total.created, "conversation", "conversations")} created, ${total.resolved.toLocaleString("en-US")} resolved, ${total.reopened.toLocaleString("en-US")} reopened.`;
}

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

  doing("the API reports the expected figures for its default range");
  const apiVolume = await apiGet("/api/reports/volume");
  assert.deepEqual(apiVolume.total, { created: expected.created, resolved: expected.resolved, reopened: expected.reopened }, JSON.stringify(apiVolume.range));
  assert.equal(apiVolume.series.length, 30, "30 days by default");
  step(`GET /api/reports/volume: ${apiVolume.range.from} to ${apiVolume.range.to} (${apiVolume.range.timeZone}), ${JSON.stringify(apiVolume.total)}`);

  doing("the Owner signs in and opens the workspace");
  const selected = answered(page, "POST", "/select");
  await signIn(page, cfg.dashboard, { email: cfg.owner.email, password: cfg.owner.password, workspaceName: cfg.workspaceName });
  assert.equal((await selected).status(), 200, "the workspace was selected: a workspace token was issued");
  step("the Owner signed in through /login and opened the workspace");

  doing("Reports opens from the main navigation, asking for the API's default range");
  const mainNav = page.getByRole("navigation", { name: "Main" });
  let volumeRead = reportRead(page, "volume");
  const firstRead = reportRead(page, "first-response-time");
  const csatRead = reportRead(page, "csat");
  await mainNav.getByRole("link", { name: "Reports", exact: true }).click();
  await page.waitForURL(/\/reports$/);
  await page.getByRole("heading", { level: 1, name: "Reports" }).waitFor();
  const firstVolume = await volumeRead;
  assert.equal(firstVolume.status(), 200);
  assert.equal(new URL(firstVolume.url()).search, "", "the default filters send no parameter: the API's last 30 days, by day");
  assert.equal((await firstRead).status(), 200);
  assert.equal((await csatRead).status(), 200);
  const filters = page.getByRole("form", { name: "Report filters" });
  assert.equal(await filters.getByLabel("Range", { exact: true }).inputValue(), "last30", '"Last 30 days" at first');
  assert.equal(await filters.getByLabel("Group by", { exact: true }).inputValue(), "day");
  assert.equal(await filters.getByLabel("Business hours only", { exact: true }).isChecked(), false);
  assert.equal(await filters.getByLabel("Channel", { exact: true }).inputValue(), "");
  await page.getByRole("status").filter({ hasText: `Showing ` }).filter({ hasText: `(${apiVolume.range.timeZone})` }).waitFor();
  step(`Reports opened from the navigation (GET /api/reports/volume with no parameter), "Last 30 days" by day`);

  doing("the volume's table totals the expected conversations");
  const volume = section(page, "Volume");
  await settled(page, volume);
  const shownVolume = await volumeTotals(volume);
  assert.deepEqual(shownVolume, { created: expected.created, resolved: expected.resolved, reopened: expected.reopened });
  await volume.getByText(volumeSentence(shownVolume), { exact: true }).waitFor();
  const volumeEmpty = expected.created + expected.resolved + expected.reopened === 0;
  if (!volumeEmpty) {
    const volumeTable = volume.getByRole("table", { name: /^Conversations per day$/ });
    const headers = (await volumeTable.locator("thead th").allInnerTexts()).map((t) => t.trim().toLowerCase());
    assert.deepEqual(headers, ["period", "created", "resolved", "reopened"]);
    assert.equal(await volumeTable.locator("tbody tr").count(), 30, "a row per day");
  }
  step(`Volume: ${volumeEmpty ? "none" : `"Total" row ${JSON.stringify(shownVolume)}, 30 rows`}, "${volumeSentence(shownVolume)}"`);
  if (!volumeEmpty) await check("the volume chart is drawn, as one image named by its summary", async () => {
    const chart = volume.locator('svg[role="img"]');
    await chart.first().waitFor({ timeout: 5_000 });
    assert.match((await chart.first().locator("title").textContent()) ?? "", /^Volume chart\. /);
    assert.ok((await chart.first().locator(".recharts-line").count()) === 3, "three lines: created, resolved, reopened");
  });

  doing("the first response table counts the expected first responses");
  const first = section(page, "First response time");
  await settled(page, first);
  if (expected.firstResponses === 0) {
    await first.getByText("No first responses in this range.", { exact: true }).waitFor();
    step("First response time: none in this range, and the page says so");
  } else {
    const firstTable = await openTable(first, /^First response time: first responses, median and p90 per day$/);
    const [name, count, median, p90] = await totalRow(firstTable);
    assert.equal(name, "Total");
    assert.equal(number(count), expected.firstResponses);
    assert.notEqual(median, "—", "a median");
    assert.notEqual(p90, "—", "a p90");
    await first.getByText(new RegExp(`^Median .+, p90 .+ over ${countText(expected.firstResponses, "first response", "first responses")}\\.$`)).waitFor();
    step(`First response time: "Total" row ${count} first responses, median ${median}, p90 ${p90}`);
  }

  doing("CSAT shows the expected ratings, and the satisfied among them");
  const csat = section(page, "CSAT");
  await settled(page, csat);
  if (expected.ratings === 0) {
    await csat.getByText("No ratings in this range.", { exact: true }).waitFor();
    step("CSAT: no ratings in this range, and the page says so");
  } else {
    const distribution = csat.getByRole("table", { name: "Ratings from 1 to 5" });
    await distribution.waitFor();
    const rows = distribution.locator("tbody tr");
    assert.equal(await rows.count(), 5, "ratings 1 to 5");
    const counts = [];
    for (let i = 0; i < 5; i++) {
      const [rating, ratings] = (await rows.nth(i).locator("th, td").allInnerTexts()).map((t) => t.trim());
      assert.ok(rating.startsWith(String(i + 1)), `row ${i + 1} is rating ${i + 1}: ${rating}`);
      counts.push(number(ratings));
    }
    const [name, total] = await totalRow(distribution);
    assert.equal(name, "Total");
    assert.equal(number(total), expected.ratings, "the distribution's total");
    assert.equal(counts.reduce((a, b) => a + b, 0), expected.ratings, "the rows add up to it");
    assert.equal(counts[3] + counts[4], expected.satisfied, "4s and 5s are the satisfied ones");
    await csat
      .getByText(new RegExp(`% satisfied: ${expected.satisfied.toLocaleString("en-US")} of ${countText(expected.ratings, "rating", "ratings")} (was|were) 4 or 5\\.$`))
      .waitFor();
    step(`CSAT: ${expected.ratings} ratings (${counts.join(", ")} for 1 to 5), ${expected.satisfied} satisfied`);
  }

  await check("the heatmap is a table of 7 days of 24 hours, each cell's count in its text and title", async () => {
    const heatmap = section(page, "Heatmap");
    await settled(page, heatmap);
    const table = heatmap.getByRole("table", { name: /^Incoming messages by weekday and hour/ });
    if ((await table.count()) === 0) {
      await heatmap.getByText("No incoming messages in this range.", { exact: true }).waitFor({ timeout: 5_000 });
      return;
    }
    const rows = table.locator("tbody tr");
    assert.equal(await rows.count(), 7);
    assert.equal(await rows.first().locator("td").count(), 24);
    const cell = rows.first().locator("td").nth(9);
    const title = (await cell.getAttribute("title")) ?? "";
    assert.match(title, /^Monday 09:00–10:00: \d+ incoming messages?$/);
    assert.equal(title.match(/: (\d+)/)?.[1], (await cell.innerText()).trim());
  });
  await check("the per-agent table lists the agents' figures", async () => {
    const agents = section(page, "Per agent");
    await settled(page, agents);
    const table = agents.getByRole("table", { name: "Figures per agent" });
    await table.waitFor({ timeout: 5_000 });
    const cols = (await table.locator("thead th").allInnerTexts()).map((t) => t.trim().toLowerCase());
    assert.deepEqual(cols, ["agent", "first responses", "median first response", "resolutions", "median resolution", "ratings", "csat"]);
    assert.ok((await table.locator("tbody tr").count()) >= 1, "at least one agent");
  });
  await shot(page, "reports");

  doing('"Business hours only" asks every report again with businessHours=true');
  volumeRead = reportRead(page, "volume", (q) => q.get("businessHours") === "true");
  const firstBusiness = reportRead(page, "first-response-time", (q) => q.get("businessHours") === "true");
  await filters.getByLabel("Business hours only", { exact: true }).check();
  assert.equal((await volumeRead).status(), 200);
  assert.equal((await firstBusiness).status(), 200);
  await page.getByRole("status").filter({ hasText: "business hours only" }).waitFor();
  await settled(page, volume);
  await settled(page, first);
  assert.deepEqual(await volumeTotals(volume), shownVolume, "business hours change the times, not the counts");
  step('"Business hours only": the reports were asked again with businessHours=true, the range says "business hours only"');
  if (expected.firstResponses > 0) {
    await check("the first responses are the same ones, timed in business hours", async () => {
      const table = await openTable(first, /^First response time: /);
      const [, count] = await totalRow(table);
      assert.equal(number(count), expected.firstResponses);
    });
  }

  doing('Channel "Chat" shows the API\'s figures for chat conversations');
  volumeRead = reportRead(page, "volume", (q) => q.get("channel") === "chat" && q.get("businessHours") === "true");
  await filters.getByLabel("Channel", { exact: true }).selectOption({ label: "Chat" });
  const chatRead = await volumeRead;
  assert.equal(chatRead.status(), 200);
  await settled(page, volume);
  const chatApi = await apiGet("/api/reports/volume?businessHours=true&channel=chat");
  const chatShown = await volumeTotals(volume);
  assert.deepEqual(chatShown, chatApi.total);
  assert.ok(chatShown.created <= expected.created, "a part of every channel's");
  step(`Channel "Chat" (channel=chat): ${JSON.stringify(chatShown)}, as the API answers`);

  doing("Download CSV of the volume fetches it with the filters and the workspace token");
  const asked = page.waitForRequest(
    (r) => r.method() === "GET" && new URL(r.url()).pathname === "/api/reports/volume" && (r.headers().accept ?? "").includes("text/csv"),
  );
  const downloading = page.waitForEvent("download");
  await volume.getByRole("button", { name: /^Download CSV/ }).click();
  const request = await asked;
  const sent = await request.allHeaders();
  const token = await sessionToken();
  assert.ok(token, "the tab holds a workspace token");
  assert.equal(sent.authorization, `Bearer ${token}`, "the download carries the workspace token, as every API call does");
  const csvQuery = new URL(request.url()).searchParams;
  assert.equal(csvQuery.get("channel"), "chat", "with the channel");
  assert.equal(csvQuery.get("businessHours"), "true", "with business hours only");
  assert.equal((await request.response())?.status(), 200);
  const download = await downloading;
  const fileName = download.suggestedFilename();
  assert.equal(fileName, `volume-${chatApi.range.from}-${chatApi.range.to}.csv`, "named as the API names it");
  const csv = readFileSync(await download.path(), "utf8");
  const lines = csv.trim().split(/\r?\n/);
  assert.equal(lines[0], VOLUME_CSV_HEADER, `the CSV's header: ${csv.slice(0, 120)}`);
  assert.equal(lines.length, 1 + chatApi.series.length, "a line per day");
  await volume.getByRole("status").filter({ hasText: `${fileName} downloaded.` }).waitFor();
  step(`"Download CSV" (Accept: text/csv, the filters, the bearer token) saved ${fileName}: "${lines[0]}" and ${lines.length - 1} days`);
  await shot(page, "reports-filtered");

  doing("no resource was refused by a Content-Security-Policy");
  assert.deepEqual(refusedByCsp, []);
  step("nothing was refused under the dashboard's Content-Security-Policy");

  doing("axe on every page shown");
  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on Reports, filtered or not, at desktop and phone sizes");

  progress.allChecksPassed();
} catch (error) {
  exitCode = 1;
  await progress.stopped(error, page, cfg.screenshots);
} finally {
  await browser?.close().catch(() => {});
}
process.exit(exitCode);
