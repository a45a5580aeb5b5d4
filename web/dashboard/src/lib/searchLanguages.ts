// The languages search can stem words in (the API's `SearchLanguage`), and their names in
// the dashboard's language. `simple` stems nothing: words match only as written.

import type { components } from "@/api/schema";

type SearchLanguage = components["schemas"]["SearchLanguage"];

const NAMES: Readonly<Record<SearchLanguage, string>> = {
  simple: "No stemming (words as written)",
  arabic: "Arabic",
  armenian: "Armenian",
  basque: "Basque",
  catalan: "Catalan",
  danish: "Danish",
  dutch: "Dutch",
  english: "English",
  finnish: "Finnish",
  french: "French",
  german: "German",
  greek: "Greek",
  hindi: "Hindi",
  hungarian: "Hungarian",
  indonesian: "Indonesian",
  irish: "Irish",
  italian: "Italian",
  lithuanian: "Lithuanian",
  nepali: "Nepali",
  norwegian: "Norwegian",
  portuguese: "Portuguese",
  romanian: "Romanian",
  russian: "Russian",
  serbian: "Serbian",
  spanish: "Spanish",
  swedish: "Swedish",
  tamil: "Tamil",
  turkish: "Turkish",
  yiddish: "Yiddish",
};

/** Every language, by name, with "no stemming" last. */
export const SEARCH_LANGUAGES: readonly SearchLanguage[] = [
  ...(Object.keys(NAMES) as SearchLanguage[]).filter((l) => l !== "simple").sort((a, b) => NAMES[a].localeCompare(NAMES[b])),
  "simple",
];

export function searchLanguageName(language: SearchLanguage): string {
  return NAMES[language];
}
