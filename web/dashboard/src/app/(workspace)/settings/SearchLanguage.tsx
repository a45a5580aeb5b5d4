"use client";

// The language search stems words in (`search.language`): the API remaps the workspace's
// index at once and re-indexes past conversations in the background (the worker).

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { components } from "@/api/schema";
import { ErrorMessage, SelectField, StatusMessage, SubmitButton } from "@/components/ui";
import { useApi } from "@/app/providers";
import { SEARCH_LANGUAGES, searchLanguageName } from "@/lib/searchLanguages";
import { useWorkspace } from "../WorkspaceContext";

type SearchLanguage = components["schemas"]["SearchLanguage"];

export function SearchLanguageSettings() {
  const api = useApi();
  const { workspace } = useWorkspace();
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: keys.settings(workspace.id), queryFn: () => unwrap(api.workspace.GET("/api/settings")) });
  const save = useMutation({
    mutationFn: (language: SearchLanguage) => unwrap(api.workspace.PATCH("/api/settings", { body: { search: { language } } })),
    onSuccess: (data) => queryClient.setQueryData(keys.settings(workspace.id), data),
  });
  const current = settings.data?.search.language;
  return (
    <section aria-labelledby="search-settings-heading" className="panel">
      <h2 id="search-settings-heading">Search</h2>
      <ErrorMessage error={settings.error} />
      {current ? (
        <form
          key={settings.data?.updatedAt}
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate(new FormData(event.currentTarget).get("language") as SearchLanguage);
          }}
        >
          <SelectField label="Language of your conversations" name="language" defaultValue={current} aria-describedby="search-language-hint">
            {SEARCH_LANGUAGES.map((language) => (
              <option key={language} value={language}>
                {searchLanguageName(language)}
              </option>
            ))}
          </SelectField>
          <p className="hint" id="search-language-hint">
            Search finds every word as written, and also its other forms in this language (&ldquo;refunds&rdquo; finds &ldquo;refunded&rdquo; in
            English). After a change, new messages use it at once; past conversations are indexed again in the background.
          </p>
          <ErrorMessage error={save.error} />
          {save.isSuccess ? <StatusMessage>Search language saved.</StatusMessage> : null}
          <SubmitButton pending={save.isPending} pendingText="Saving…">
            Save search language
          </SubmitButton>
        </form>
      ) : null}
    </section>
  );
}
