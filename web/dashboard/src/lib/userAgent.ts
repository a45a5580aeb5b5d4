// A browser's user agent as agents read it: "Chrome 120 on macOS". Only the common browsers
// and systems; anything else reads as "Unknown browser". Order matters: Edge and Opera also
// say "Chrome", Chrome also says "Safari".

const BROWSERS: [name: string, pattern: RegExp][] = [
  ["Edge", /Edg(?:e|A|iOS)?\/(\d+)/],
  ["Opera", /(?:OPR|Opera)\/(\d+)/],
  ["Samsung Internet", /SamsungBrowser\/(\d+)/],
  ["Firefox", /(?:Firefox|FxiOS)\/(\d+)/],
  ["Chrome", /(?:Chrome|CriOS)\/(\d+)/],
  ["Safari", /Version\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//],
];

const SYSTEMS: [name: string, pattern: RegExp][] = [
  ["iOS", /iPhone|iPad|iPod/],
  ["Android", /Android/],
  ["ChromeOS", /CrOS/],
  ["Windows", /Windows/],
  ["macOS", /Mac OS X|Macintosh/],
  ["Linux", /Linux/],
];

export function describeUserAgent(userAgent: string): string {
  const browser = BROWSERS.map(([name, pattern]) => ({ name, match: pattern.exec(userAgent) })).find((b) => b.match);
  const system = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))?.[0];
  const browserText = browser ? `${browser.name} ${browser.match![1]}` : "Unknown browser";
  return system ? `${browserText} on ${system}` : browserText;
}
