// Session notices that go stale: "We sent a verification link to …" (set at registration)
// is no longer true once the address is verified, while the rest of the notice ("Welcome,
// Ann.") still is.

const VERIFICATION_SENTENCE = /\s*We sent a verification link to [^\s]+?\.(?=\s|$)/;

/** The notice to show, given whether the account's address is verified now (null: none). */
export function currentNotice(notice: string | null, emailVerified: boolean | undefined): string | null {
  if (!notice || !emailVerified) return notice;
  const rest = notice.replace(VERIFICATION_SENTENCE, "").trim();
  return rest || null;
}
