// The workspace's branding comes from its owners, through the API: use it only in shapes that
// cannot break the page (a checked colour, an https image URL), with readable text on it.

import type { WidgetSession } from "@/loader/protocol";

export const DEFAULT_COLOR = "#1f6feb";
export const DEFAULT_GREETING = "Hi! How can we help you today?";

export function brandColor(color: string | null): string {
  return color && /^#[0-9a-f]{6}$/i.test(color) ? color : DEFAULT_COLOR;
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
export function textOn(hex: string): "#ffffff" | "#111111" {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  // Contrast with white (1.05 / (l + 0.05)) against contrast with near-black.
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.057 ? "#ffffff" : "#111111";
}

/** https only: a plain-http logo would be mixed content on an https widget (and is unencrypted). */
export function imageUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

export interface Look {
  title: string;
  greeting: string;
  color: string;
  textColor: string;
  logoUrl: string | null;
}

export function lookOf(session: WidgetSession): Look {
  const b = session.workspace.branding;
  const color = brandColor(b.color);
  return {
    title: b.name?.trim() || session.workspace.name,
    greeting: b.widgetGreeting?.trim() || DEFAULT_GREETING,
    color,
    textColor: textOn(color),
    logoUrl: imageUrl(b.logoUrl),
  };
}
