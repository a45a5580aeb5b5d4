// Initials avatars: the same person always gets the same colour (derived from their id), and
// every colour carries white text at WCAG AA contrast.

const COLOURS = ["#1d4ed8", "#047857", "#b42318", "#7c3aed", "#b45309", "#0e7490", "#be185d", "#4d7c0f"] as const;

/** Up to two initials: "Olivia Park" -> "OP", "teal otter" -> "TO", "" -> "?". */
export function initials(name: string): string {
  const words = name.trim().split(/[\s@._-]+/).filter(Boolean);
  if (!words.length) return "?";
  const first = words[0]!.charAt(0);
  const last = words.length > 1 ? words[words.length - 1]!.charAt(0) : "";
  return (first + last).toUpperCase();
}

/** A stable colour for an id (a simple string hash, spread over the palette). */
export function avatarColour(id: string): string {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  return COLOURS[hash % COLOURS.length]!;
}
