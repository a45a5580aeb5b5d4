// What the widget tells the API about the visitor's whereabouts (PUT /widget/v1/context): the
// host page (from the loader; the iframe cannot read it), and the browser's time zone and
// language. The API refuses the whole report over one field it cannot take, so what it would
// refuse is left out here (a page that is no http(s) URL, an address too long) or shortened
// (a long title); empty values are left out rather than sent blank.

import type { HostPage } from "@/loader/protocol";
import type { VisitorContext } from "./api";

/** The API's limits (src/widget/context.rs). */
export const URL_MAX_LENGTH = 2048;
export const TITLE_MAX_CHARS = 300;
const TIME_ZONE_MAX_CHARS = 64;
const LOCALE_MAX_CHARS = 35;

function webUrl(value: string | undefined): string | undefined {
  return value && value.length <= URL_MAX_LENGTH && /^https?:\/\/[^/]/i.test(value) ? value : undefined;
}

function shortText(value: string | undefined, max: number): string | undefined {
  const text = value?.trim();
  return text ? [...text].slice(0, max).join("") : undefined;
}

export function visitorContext(page: HostPage | null, timeZone: string | undefined, locale: string | undefined): VisitorContext {
  const context: VisitorContext = {};
  const pageUrl = webUrl(page?.url);
  const pageTitle = shortText(page?.title, TITLE_MAX_CHARS);
  const referrer = webUrl(page?.referrer);
  timeZone = timeZone && timeZone.length <= TIME_ZONE_MAX_CHARS ? timeZone : undefined;
  locale = locale && locale.length <= LOCALE_MAX_CHARS ? locale : undefined;
  if (pageUrl) context.pageUrl = pageUrl;
  if (pageTitle) context.pageTitle = pageTitle;
  if (referrer) context.referrer = referrer;
  if (timeZone) context.timeZone = timeZone;
  if (locale) context.locale = locale;
  return context;
}

/** The browser's own time zone and language, where it tells them. */
export function browserContext(): { timeZone: string | undefined; locale: string | undefined } {
  let timeZone: string | undefined;
  try {
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    timeZone = undefined;
  }
  return { timeZone, locale: typeof navigator === "undefined" ? undefined : navigator.language };
}
