// An initials avatar on a colour derived from the person's id. Decorative: the name is always
// written next to it.

import { avatarColour, initials } from "@/lib/avatar";

export function Avatar({ id, name, size = "medium" }: { id: string; name: string; size?: "small" | "medium" }) {
  return (
    <span className={`avatar avatar-${size}`} style={{ backgroundColor: avatarColour(id) }} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
