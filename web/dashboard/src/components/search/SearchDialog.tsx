"use client";

// The search box, opened from the header or with Ctrl/Cmd+K on any page. A combobox: typing
// searches the workspace (after a short pause), the results below are one listbox grouped by
// type, the arrow keys move through them while focus stays in the box, Enter or a click opens
// one, Escape closes. Snippets show matched words in <mark>, built from text runs (the API's
// highlight is never injected as HTML).

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { unwrap } from "@/api/client";
import { keys } from "@/api/keys";
import type { SearchHit } from "@/api/types";
import { useApi } from "@/app/providers";
import { Dialog, ErrorMessage } from "@/components/ui";
import { displayOrder, groupHits, HIT_TYPE_HEADINGS, highlightRuns, hitHref, moveActive } from "@/lib/search";

/** How long typing must pause before a search is sent. */
const PAUSE_MS = 200;
const RESULTS = 20;

export function SearchDialog({ workspaceId, open, onClose }: { workspaceId: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} title="Search" onClose={onClose}>
      {open ? <SearchBox workspaceId={workspaceId} onClose={onClose} /> : null}
    </Dialog>
  );
}

function usePaused(value: string, ms: number): string {
  const [paused, setPaused] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setPaused(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return paused;
}

function SearchBox({ workspaceId, onClose }: { workspaceId: string; onClose: () => void }) {
  const api = useApi();
  const router = useRouter();
  const ids = useId();
  const listId = `${ids}-results`;
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const q = usePaused(text.trim(), PAUSE_MS);
  // The dialog focuses its first control (Close) when it opens, after this mounts: the box
  // takes the focus on the next frame, so typing starts at once.
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const frame = requestAnimationFrame(() => input.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, []);
  const search = useQuery({
    queryKey: keys.search(workspaceId, q),
    queryFn: () => unwrap(api.workspace.GET("/api/search", { params: { query: { q, limit: RESULTS } } })),
    enabled: q.length > 0,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
  const hits = q ? displayOrder(search.data?.results ?? []) : [];
  const current = hits[Math.min(active, hits.length - 1)];
  const optionId = (hit: SearchHit) => `${ids}-${hit.type}-${hit.id}`;

  const openHit = (hit: SearchHit) => {
    onClose();
    router.push(hitHref(hit));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Enter") {
      event.preventDefault();
      if (current) openHit(current);
      return;
    }
    const next = moveActive(event.key, active, hits.length);
    if (next === null) return;
    event.preventDefault();
    setActive(next);
    document.getElementById(optionId(hits[next]!))?.scrollIntoView({ block: "nearest" });
  };

  return (
    <div className="search-box">
      <label htmlFor={`${ids}-q`}>Search conversations, messages, tickets and contacts</label>
      <input
        ref={input}
        id={`${ids}-q`}
        type="search"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={hits.length > 0}
        aria-controls={listId}
        aria-activedescendant={current ? optionId(current) : undefined}
        aria-describedby={`${ids}-hint`}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <p id={`${ids}-hint`} className="hint">
        &quot;Exact phrase&quot;, <kbd>or</kbd> between words, <kbd>-word</kbd> to leave out. Arrow keys move, Enter opens.
      </p>
      <ErrorMessage error={search.error} />
      <p role="status" className="visually-hidden">
        {q && search.isSuccess ? `${hits.length} result${hits.length === 1 ? "" : "s"}` : ""}
      </p>
      {q && search.isSuccess && hits.length === 0 ? <p className="muted">Nothing matches “{q}”.</p> : null}
      <div id={listId} role="listbox" aria-label="Results" className="search-results">
        {groupHits(hits).map((group) => (
          <div key={group.type} role="group" aria-labelledby={`${ids}-${group.type}`}>
            <h3 id={`${ids}-${group.type}`} className="search-group" role="presentation">
              {HIT_TYPE_HEADINGS[group.type]}
            </h3>
            {group.hits.map((hit) => (
              <div
                key={optionId(hit)}
                id={optionId(hit)}
                role="option"
                aria-selected={hit === current}
                className={`search-hit${hit === current ? " active" : ""}`}
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => openHit(hit)}
              >
                <span className="search-title">{hit.title}</span>
                <span className="search-snippet">
                  {highlightRuns(hit.highlight).map((run, n) => (run.marked ? <mark key={n}>{run.text}</mark> : <span key={n}>{run.text}</span>))}
                </span>
              </div>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}
