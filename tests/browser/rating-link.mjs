// CSAT by email in a real browser (Debian's chromium through playwright-core): the customer
// clicks a rating link of the "How did we do?" email, which opens the widget app's /rate page,
// and the page records the score against the real API. Run by the Rust suite, which starts the
// API and the widget app, resolves an email conversation and passes RATING_LINK_TEST_CONFIG:
//   { api, widget, links: {"1": url, ..., "5": url}, expiredLink: url, tamperedLink: url,
//     screenshots: "/abs/dir", chromium: "/usr/bin/chromium", comment?: "text to send" }
// `links` are the five links of one email. The journey: the "4" link thanks for "4 of 5" (one
// POST /widget/v1/rating-links, the token shown nowhere on the page), a comment is added; the
// "5" link of the same email then says the conversation has already been rated; the expired
// and the tampered link say so, and an incomplete link asks nothing of the API. The Rust side
// then checks the conversation's rating: 4, with COMMENT. Pages are checked with axe (WCAG 2.1
// A/AA; the script fails on any violation, listing them all) and screenshotted (rate-thanks.png,
// rate-comment.png, and each at desktop and phone sizes). Each step prints `ok - ...`; the first
// failure prints `not ok - ...`, saves failure.png and exits 1; a bad config exits 2.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { assertNoViolations, checkAccessibility, DESKTOP, visit } from "./pages.mjs";

const cfg = JSON.parse(process.env.RATING_LINK_TEST_CONFIG ?? "null");
const scores = ["1", "2", "3", "4", "5"];
if (!cfg?.api || !cfg?.widget || !cfg?.expiredLink || !cfg?.tamperedLink || !cfg?.screenshots || !scores.every((s) => cfg?.links?.[s])) {
  console.error(
    'not ok - RATING_LINK_TEST_CONFIG must hold {api, widget, links: {"1".."5": url}, expiredLink, tamperedLink, screenshots, chromium?, comment?}',
  );
  process.exit(2);
}
const TIMEOUT = 15_000;
const COMMENT = cfg.comment ?? "Quick and friendly help, thank you!";
const RATING_LINKS = "/widget/v1/rating-links";

function step(name) {
  console.log(`ok - ${name}`);
}

function shot(name) {
  return join(cfg.screenshots, name);
}

/** The link's token: it must show nowhere on the page nor in its console. */
function tokenOf(link) {
  const token = new URL(link).searchParams.get("t");
  assert.ok(token, "a rating link carries its token in `t`");
  return token;
}

/** Browser-side problems are printed as they happen (they explain most failures), and kept. */
function watch(page, consoleLines) {
  page.on("console", (m) => {
    consoleLines.push(m.text());
    if (m.type() === "error" || m.type() === "warning") console.log(`# console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => console.log(`# page error: ${e.message}`));
}

/** Requests to the rating-links route, from now on. */
function ratingRequests(page) {
  const seen = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === RATING_LINKS && r.method() !== "OPTIONS") seen.push(r);
  });
  return seen;
}

/** Opens `link` and waits for the page's answer to show in `<main>` as `role` with `text`. */
async function open(page, link, role, text) {
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === RATING_LINKS && r.request().method() === "POST");
  await page.goto(link);
  const response = await answered;
  await page.getByRole("main").getByRole(role).filter({ hasText: text }).waitFor();
  return response;
}

async function problemCode(response) {
  return (await response.json().catch(() => null))?.code;
}

const consoleLines = [];
let browser;
let page;
try {
  mkdirSync(cfg.screenshots, { recursive: true });
  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(TIMEOUT);
  page = await context.newPage();
  watch(page, consoleLines);
  const requests = ratingRequests(page);

  const rated = await open(page, cfg.links["4"], "status", "4 of 5");
  assert.equal(rated.status(), 201, `POST ${RATING_LINKS} answers 201 (got ${rated.status()})`);
  assert.equal(await page.title(), "Rate our help");
  await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();
  const thanks = (await page.getByRole("main").getByRole("status").first().textContent())?.trim();
  assert.match(thanks ?? "", /^You rated conversation #\d+ with .+ 4 of 5\.$/);
  const posts = requests.filter((r) => r.method() === "POST");
  assert.equal(posts.length, 1, "the page records the score once");
  const sent = posts[0].postDataJSON();
  assert.equal(sent.rating, 4);
  assert.equal(sent.token, tokenOf(cfg.links["4"]));
  const robots = await page.locator('meta[name="robots"]').getAttribute("content");
  assert.match(robots ?? "", /noindex/, "the page asks not to be indexed");
  await checkAccessibility(page, "rate-thanks");
  await page.screenshot({ path: shot("rate-thanks.png"), fullPage: true });
  await visit(page, cfg.screenshots, "rate-thanks");
  step(`the "4" link recorded 4 of 5 at once (one POST): "Thank you!" and "${thanks}" (axe clean, rate-thanks.png)`);

  const token = tokenOf(cfg.links["4"]);
  assert.ok(!(await page.getByRole("main").innerText()).includes(token), "the token shows nowhere on the page");
  assert.deepEqual(consoleLines.filter((line) => line.includes(token)), [], "nor in the console");
  step("the link's token shows nowhere on the page nor in its console");

  const box = page.getByRole("textbox", { name: "Anything you'd like to add? (optional)" });
  await box.fill(COMMENT);
  const commented = page.waitForResponse((r) => new URL(r.url()).pathname === RATING_LINKS && r.request().method() === "PATCH");
  await page.getByRole("button", { name: "Send comment" }).click();
  const patch = await commented;
  assert.equal(patch.status(), 200, `PATCH ${RATING_LINKS} answers 200 (got ${patch.status()})`);
  assert.equal(patch.request().postDataJSON().comment, COMMENT);
  const confirmation = page.getByRole("status").filter({ hasText: "Thanks, we've passed your comment on." });
  await confirmation.waitFor();
  assert.equal(await box.count(), 0, "the confirmation replaces the form");
  assert.equal(await confirmation.evaluate((el) => el === document.activeElement), true, "the confirmation takes the focus");
  await checkAccessibility(page, "rate-comment");
  await page.screenshot({ path: shot("rate-comment.png"), fullPage: true });
  step("a comment sent: \"Thanks, we've passed your comment on.\" replaces the form and takes the focus (axe clean, rate-comment.png)");

  const again = await open(page, cfg.links["5"], "status", "This conversation has already been rated. Thank you!");
  assert.equal(again.status(), 409);
  assert.equal(await problemCode(again), "already_rated");
  assert.equal(await page.getByRole("textbox").count(), 0, "no comment form");
  await visit(page, cfg.screenshots, "rate-already-rated");
  step('the "5" link of the same email: "This conversation has already been rated. Thank you!" (409 already_rated)');

  const expired = await open(page, cfg.expiredLink, "alert", "This rating link has expired.");
  assert.equal(expired.status(), 410);
  await visit(page, cfg.screenshots, "rate-expired");
  const tampered = await open(page, cfg.tamperedLink, "alert", "This rating link is not valid.");
  assert.equal(tampered.status(), 404);
  await checkAccessibility(page, "rate-not-valid");
  step('the expired link: "This rating link has expired." (410); the tampered one: "This rating link is not valid." (404)');

  const before = requests.length;
  const incomplete = new URL("/rate", cfg.widget);
  incomplete.searchParams.set("w", new URL(cfg.links["4"]).searchParams.get("w") ?? "");
  incomplete.searchParams.set("r", "4");
  await page.goto(incomplete.href);
  await page.getByRole("main").getByRole("alert").filter({ hasText: "This rating link is incomplete." }).waitFor();
  await page.waitForTimeout(300);
  assert.equal(requests.length, before, "an incomplete link asks nothing of the API");
  await checkAccessibility(page, "rate-incomplete");
  step('a link without its token: "This rating link is incomplete." and no request');

  assertNoViolations();
  step("axe found no WCAG 2.1 A/AA violation on any of the rating pages");
  console.log("all passed");
} catch (error) {
  console.log(`not ok - ${error?.stack ?? error}`);
  if (page) {
    await page.screenshot({ path: shot("failure.png"), fullPage: true }).catch(() => undefined);
    const shown = await page.getByRole("main").innerText().catch(() => "");
    console.log(`# the page at the failure, saved as failure.png:\n${shown}`);
  }
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
}
