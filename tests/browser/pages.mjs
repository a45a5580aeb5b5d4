// What every browser script does on each page it visits: screenshots at a desktop and a phone
// size (kept as artifacts), and an accessibility check with axe-core (WCAG 2.0/2.1, levels A
// and AA) at both sizes. Violations are collected, so one run lists every page's, and the
// script fails at its end with them all (`assertNoViolations`).

import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** `{page label, size, violation}` for every violation seen. */
const found = [];

/**
 * The violations axe finds on `page` now, as readable lines (none: []). A soft navigation
 * (a filter put in the address) streams the page's metadata after its content, so the page is
 * checked once it has a title again; one that never gets it within 5 s is checked as it is,
 * and axe reports it.
 */
export async function axeViolations(page) {
  await page.waitForFunction(() => document.title.trim() !== "", null, { timeout: 5_000 }).catch(() => {});
  const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  return results.violations.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${v.id} (${v.impact ?? "?"}): ${v.help}\n      at ${n.target.map(String).join(" >> ")}\n      ${n.failureSummary?.replace(/\n\s*/g, " ") ?? ""}\n      ${v.helpUrl}`,
    ),
  );
}

/**
 * Screenshots `<dir>/<name>-desktop.png` (1280x800) and `<name>-phone.png` (390x844), each
 * checked with axe, then puts the page back at its own size. `settle` runs after each resize
 * (e.g. waits for a layout that depends on the width). Returns the violations it found.
 */
export async function visit(page, dir, name, { settle, fullPage = true } = {}) {
  const own = page.viewportSize();
  const seen = [];
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ]) {
    await page.setViewportSize(viewport);
    if (settle) await settle(size);
    await page.screenshot({ path: join(dir, `${name}-${size}.png`), fullPage });
    for (const violation of await axeViolations(page)) {
      seen.push(violation);
      found.push({ page: name, size, violation });
    }
  }
  if (own) await page.setViewportSize(own);
  if (settle) await settle("own");
  console.log(`# ${name}: screenshots at desktop and phone sizes, ${seen.length} accessibility violation(s)`);
  return seen;
}

/** Checks `page` with axe at its own size, as it is now (no resizing: its state stays put). */
export async function checkAccessibility(page, name) {
  const seen = await axeViolations(page);
  for (const violation of seen) found.push({ page: name, size: "as shown", violation });
  console.log(`# ${name}: ${seen.length} accessibility violation(s)`);
  return seen;
}

/** Every violation seen so far, one readable entry per element, or "" when none. */
export function violationReport() {
  if (found.length === 0) return "";
  const lines = found.map((f) => `  - ${f.page} (${f.size}): ${f.violation}`);
  return `axe found ${found.length} WCAG 2.1 A/AA violation(s):\n${lines.join("\n")}`;
}

/** Fails with every violation seen on every page, grouped by page and size. */
export function assertNoViolations() {
  const report = violationReport();
  if (report) throw new Error(report);
}

/**
 * Presses Tab until `locator`'s element has the focus (keyboard-only journeys): fails after
 * `limit` presses, so an element the keyboard cannot reach fails the test.
 */
export async function tabTo(page, locator, limit = 80) {
  const target = await locator.elementHandle();
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`${limit} presses of Tab never reached ${locator}`);
}

/**
 * A journey's bookkeeping: each step printed as `ok - ...` when it passes, the step under way
 * (`current`, named when something fails), and checks whose failure does not stop the journey
 * (what follows does not depend on them): such a check prints `not ok - ...` at once and is
 * kept in `failed`, and the run fails at its end with every one of them.
 */
export function journey() {
  const failed = [];
  let current = "starting";
  return {
    failed,
    get current() {
      return current;
    },
    step(name) {
      console.log(`ok - ${name}`);
    },
    doing(name) {
      current = name;
    },
    /** The journey's last step: every check passed. */
    allChecksPassed() {
      current = "every check of the journey";
      if (failed.length > 0) {
        throw new Error(`${failed.length} check(s) failed:\n  - ${failed.join("\n  - ")}`);
      }
      console.log("ok - every check passed");
    },
    /**
     * Reports what stopped the journey, with the page as it stood (its text, and
     * `failure.png` in `screenshots`) unless only the checks' summary failed.
     */
    async stopped(error, page, screenshots) {
      console.error(`not ok - ${current}: ${error instanceof Error ? error.message : error}`);
      if (error instanceof Error && error.stack) console.error(error.stack.split("\n").slice(1, 4).join("\n"));
      if (page && current !== "every check of the journey") {
        await page.screenshot({ path: `${screenshots}/failure.png`, fullPage: true }).catch(() => {});
        const shown = await page.locator("main").innerText().catch(() => "");
        console.error(`--- the page at the failure (${page.url()}), saved as failure.png:\n${shown}`);
      }
    },
    async check(name, body) {
      try {
        await body();
        console.log(`ok - ${name}`);
      } catch (error) {
        const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
        failed.push(`${name}: ${why}`);
        console.log(`not ok - ${name}: ${why}`);
      }
    },
  };
}

/**
 * Signs in through the dashboard's /login form with `email` and `password` and opens the
 * workspace `workspaceName` (sign-in may go straight to its inbox when it is the only or the
 * remembered one). Resolves once the inbox's URL is shown.
 */
export async function signIn(page, dashboardUrl, { email, password, workspaceName }) {
  await page.goto(new URL("/login", dashboardUrl).toString());
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/(workspaces|inbox)$/);
  if (new URL(page.url()).pathname === "/workspaces") {
    await page.getByRole("button", { name: `Open ${workspaceName}` }).click();
    await page.waitForURL(/\/inbox$/);
  }
}

/** `text` as a regular expression that matches it literally. */
export const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

