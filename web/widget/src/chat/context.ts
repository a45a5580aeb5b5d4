// What the widget tells the API about the visitor's whereabouts (PUT /widget/v1/context): the
// host page (from the loader; the iframe cannot read it), and the browser's time zone and
// language. Empty values are left out rather than sent blank.

import type { HostPage } from "@/loader/protocol";
import type { VisitorContext } from "./api";

export function visitorContext(page: HostPage | null, timeZone: string | undefined, locale: string | undefined): VisitorContext {
  const context: VisitorContext = {};
  if (page?.url) context.pageUrl = page.url;
  if (page?.title) context.pageTitle = page.title;
  if (page?.referrer) context.referrer = page.referrer;
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
