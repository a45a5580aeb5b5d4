// Canned responses with a placeholder that can come out empty: `{{contact.name}}` without a
// fallback renders as nothing for a contact with no name ("Thanks, !"). The API takes
// `{{contact.name | fallback: "there"}}`; the reply box warns before such a text is sent.

const BARE_CONTACT_NAME = /\{\{\s*contact\.name\s*\}\}/;

/** Whether the template uses the contact's name without a fallback. */
export function needsNameFallback(template: string): boolean {
  return BARE_CONTACT_NAME.test(template);
}
