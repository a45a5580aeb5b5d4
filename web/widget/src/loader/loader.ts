// The script customers embed on their pages:
//   <script src="https://WIDGET_HOST/widget.js" data-site-key="swk_..." async></script>
// It adds a launcher button and, on first open, an iframe with the chat page (/chat on the
// widget's own origin). It creates the visitor session itself because the API checks the
// browser's Origin against the workspace's allowed origins: the request must come from the
// customer's page. The token then goes to the iframe by postMessage, addressed to the widget's
// exact origin. The visitor id lives in the widget origin's storage (the iframe's); only when
// the browser denies the iframe its storage (third-party storage blocked) does the loader keep
// it in the page's own localStorage, under one namespaced key. One global only (`SupportDesk`). It draws in a shadow root with CSSOM styles, so
// the page's CSS does not leak in and a strict style-src CSP does not block it.
// Before drawing anything it asks the API whether this page's origin is allowed (origin.ts): a
// refused page shows nothing and tells its owner in the console. Once the chat exists, the
// loader tells it the host page's address (the iframe cannot read it) and shows the chat's
// unread count on the launcher.

import { NETWORK_DETAIL, problemOf } from "../lib/problem";
import { asksForChat, badgeText, launcherLabel, withoutChatFragment } from "./launcher";
import { checkOrigin, refusedOriginMessage } from "./origin";
import {
  envelope,
  fromExpected,
  parseFromWidget,
  parseIdentity,
  sameIdentity,
  type FromLoader,
  type HostPage,
  type Identity,
  type SessionReason,
} from "./protocol";

// Wrapped around this file by the widget server at request time (render.ts), from its own
// NEXT_PUBLIC_API_URL: one build serves any install, and nothing secret is ever in here.
declare const __SUPPORTDESK__: { apiUrl: string };

interface Api {
  identify(identity: Identity): void;
  open(): void;
  close(): void;
}
/** Calls queued by a page before this script ran: `window.SupportDesk = {q: [["identify", {...}]]}`. */
type Stub = { q?: unknown; loaded?: boolean };

const Z = "2147483000";
/** How often an open chat looks for a single-page site's navigation (pushState fires no event). */
const PAGE_POLL_MS = 1000;
const DEFAULT_COLOR = "#1f6feb";
const CHAT_ICON = "M20 2H4a2 2 0 0 0-2 2v18l4-4h14a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2z";
const CLOSE_ICON =
  "M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z";

function css(el: HTMLElement | SVGElement, styles: Record<string, string>) {
  Object.assign(el.style, styles);
}

function pageStorage<T>(act: (storage: Storage) => T): T | null {
  try {
    return act(localStorage);
  } catch {
    return null; // storage blocked here too: a new visitor per page load
  }
}

function start() {
  const w = window as unknown as { SupportDesk?: Stub & Partial<Api> };
  const stub = w.SupportDesk;
  if (stub?.loaded) return; // the script is on the page twice

  const script = (document.currentScript ??
    document.querySelector("script[data-site-key][src*='/widget.js']")) as HTMLScriptElement | null;
  const siteKey = script?.dataset.siteKey;
  if (!script || !siteKey) {
    console.error("SupportDesk: the widget's <script> tag needs a data-site-key attribute");
    return;
  }
  const widgetOrigin = new URL(script.src, location.href).origin;
  const sessionsUrl = `${__SUPPORTDESK__.apiUrl}/widget/v1/sessions`;
  // A phone, or a window as narrow as one. screen.width too: a page without a viewport meta tag
  // lays out 980 px wide even on a phone.
  const isPhone = () => Math.min(innerWidth, screen.width) <= 480;

  let frame: HTMLIFrameElement | null = null;
  let isOpen = false;
  let visitorId: string | null = null;
  let identity: Identity | null = null;
  /** The chat page said `ready`: it hears messages now. */
  let frameReady = false;
  let handshakeDone = false;
  /** The iframe cannot store the visitor id: keep it in this page's storage. */
  let keepHere = false;
  const pageKey = `supportdesk.visitor:${siteKey}`;
  let requests = 0;
  let newPending = false;
  /** The origin check allowed this page (or could not tell): the launcher is on the page. */
  let mounted = false;
  /** The API refused this page's origin: nothing is drawn, open() does nothing. */
  let refused = false;
  let unread = 0;
  let lastPageUrl = "";

  const host = document.createElement("div");
  host.setAttribute("data-supportdesk", "");
  css(host, { all: "initial" });
  const root = host.attachShadow({ mode: "open" });

  const button = document.createElement("button");
  button.type = "button";
  // No `all: initial` here: the browser's own focus ring must stay. The host's reset already
  // stops inherited page styles, and the shadow root stops page selectors.
  css(button, {
    position: "fixed",
    margin: "0",
    padding: "0",
    border: "0",
    right: "20px",
    bottom: "20px",
    width: "56px",
    height: "56px",
    borderRadius: "50%",
    background: DEFAULT_COLOR,
    color: "#fff",
    cursor: "pointer",
    display: "flex",
    alignItems: "center",
    justifyContent: "center",
    boxShadow: "0 4px 16px rgba(0,0,0,.25)",
    zIndex: Z,
  });
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "26");
  svg.setAttribute("height", "26");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const icon = document.createElementNS("http://www.w3.org/2000/svg", "path");
  icon.setAttribute("fill", "currentColor");
  svg.append(icon);
  button.append(svg);
  // The count is in the button's accessible name; the badge is only its picture.
  const badge = document.createElement("span");
  badge.setAttribute("aria-hidden", "true");
  css(badge, {
    position: "absolute",
    top: "-4px",
    right: "-4px",
    minWidth: "20px",
    height: "20px",
    padding: "0 5px",
    boxSizing: "border-box",
    borderRadius: "10px",
    background: "#cf222e",
    color: "#fff",
    font: "700 12px/20px system-ui, sans-serif",
    textAlign: "center",
    boxShadow: "0 0 0 2px #fff",
  });
  button.append(badge);
  button.addEventListener("click", () => setOpen(!isOpen));
  root.append(button);

  function layout() {
    const full = isPhone();
    button.setAttribute("aria-expanded", String(isOpen));
    button.setAttribute("aria-label", launcherLabel(isOpen, unread));
    badge.textContent = isOpen ? "" : badgeText(unread);
    badge.style.display = badge.textContent ? "block" : "none";
    icon.setAttribute("d", isOpen ? CLOSE_ICON : CHAT_ICON);
    // On a phone the open chat covers the screen; its own "Minimize chat" button closes it.
    button.style.display = isOpen && full ? "none" : "flex";
    if (!frame) return;
    css(frame, {
      display: isOpen ? "block" : "none",
      top: full ? "0" : "auto",
      left: full ? "0" : "auto",
      right: full ? "0" : "20px",
      bottom: full ? "0" : "88px",
      width: full ? "100%" : "380px",
      height: full ? "100%" : "600px",
      maxWidth: full ? "none" : "calc(100vw - 40px)",
      maxHeight: full ? "none" : "calc(100vh - 108px)",
      borderRadius: full ? "0" : "12px",
    });
  }

  function createFrame(): HTMLIFrameElement {
    const f = document.createElement("iframe");
    f.id = "supportdesk-chat";
    f.title = "Chat";
    f.src = `${widgetOrigin}/chat`;
    css(f, {
      position: "fixed",
      border: "0",
      background: "#fff",
      colorScheme: "normal",
      boxShadow: "0 8px 32px rgba(0,0,0,.25)",
      zIndex: Z,
    });
    button.setAttribute("aria-controls", f.id);
    root.append(f);
    lastPageUrl = hostPage().url;
    setInterval(watchPage, PAGE_POLL_MS);
    return f;
  }

  function hostPage(): HostPage {
    return { url: withoutChatFragment(location.href), title: document.title, referrer: document.referrer };
  }

  /** Tells the chat when a single-page site moved to another address. */
  function watchPage() {
    const page = hostPage();
    if (page.url === lastPageUrl) return;
    lastPageUrl = page.url;
    if (frameReady) post({ type: "page", page });
  }

  function setOpen(open: boolean) {
    if (refused) return;
    isOpen = open;
    if (open) unread = 0;
    // Opened (e.g. a queued open()) before the origin check answered: the frame waits for it.
    if (open && !frame && mounted) frame = createFrame();
    layout();
    if (open) {
      frame?.focus();
      if (frameReady) post({ type: "open" }); // else `ready` sends it
    } else if (frameReady) {
      post({ type: "closed" });
    }
  }

  function post(message: FromLoader) {
    frame?.contentWindow?.postMessage(envelope(message), widgetOrigin);
  }

  /** Creates a session for the current visitor and identity, and hands it to the iframe. */
  async function createSession(asked: SessionReason) {
    // A renewal asked while a new (identified) session is on its way must still start over.
    if (asked === "new") newPending = true;
    const mine = ++requests;
    let message: FromLoader;
    try {
      const response = await fetch(sessionsUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        credentials: "omit",
        body: JSON.stringify({ siteKey, visitorId: visitorId ?? undefined, identity: identity ?? undefined }),
      });
      const reason: SessionReason = newPending ? "new" : asked;
      if (response.ok) {
        const session = await response.json();
        if (mine !== requests) return;
        if (typeof session?.visitorId === "string") {
          visitorId = session.visitorId;
          if (keepHere) pageStorage((s) => s.setItem(pageKey, session.visitorId));
        }
        const color = session?.workspace?.branding?.color;
        if (typeof color === "string" && /^#[0-9a-f]{6}$/i.test(color)) button.style.background = color;
        message = { type: "session", reason, session };
      } else {
        message = { type: "session-error", reason, ...(await problemOf(response)) };
      }
    } catch {
      message = { type: "session-error", reason: newPending ? "new" : asked, status: 0, detail: NETWORK_DETAIL, retryAfter: null };
    }
    if (mine !== requests) return; // a later request (e.g. identify) supersedes this one
    newPending = false;
    post(message);
  }

  addEventListener("message", (event) => {
    if (!frame || !fromExpected(event, frame.contentWindow, widgetOrigin)) return;
    const m = parseFromWidget(event.data);
    if (m?.type === "ready") {
      frameReady = true;
      lastPageUrl = hostPage().url;
      post({ type: "hello", siteKey, page: hostPage() });
      if (isOpen) post({ type: "open" });
    } else if (m?.type === "visitor") {
      keepHere = !m.stored;
      visitorId = m.visitorId ?? (keepHere ? pageStorage((s) => s.getItem(pageKey)) : null) ?? visitorId;
      handshakeDone = true;
      void createSession("new");
    } else if (m?.type === "renew") {
      if (handshakeDone) void createSession("renew");
    } else if (m?.type === "close") {
      setOpen(false);
      button.focus();
    } else if (m?.type === "unread") {
      unread = isOpen ? 0 : m.count;
      layout();
    }
  });
  addEventListener("resize", layout);
  addEventListener("popstate", () => frame && watchPage());
  addEventListener("hashchange", () => {
    if (frame) watchPage();
    if (asksForChat(location.hash)) setOpen(true);
  });

  const api: Api & Stub = {
    loaded: true,
    identify(value: Identity) {
      const parsed = parseIdentity(value);
      if (!parsed) {
        console.error("SupportDesk.identify expects {externalId, email?, name?, hash}");
        return;
      }
      if (sameIdentity(identity, parsed)) return; // already this person: keep the session
      identity = parsed;
      // Before the chat was opened, the first session will carry the identity.
      if (handshakeDone) void createSession("new");
    },
    open: () => setOpen(true),
    close: () => setOpen(false),
  };
  w.SupportDesk = api;
  if (Array.isArray(stub?.q)) {
    for (const call of stub.q) {
      if (Array.isArray(call) && (call[0] === "identify" || call[0] === "open" || call[0] === "close")) {
        api[call[0] as keyof Api](call[1]);
      }
    }
  }

  layout();
  const mount = () => {
    document.body.append(host);
    mounted = true;
    // A link from a reply email, or an open() called meanwhile: straight into the chat.
    if (isOpen || asksForChat(location.hash)) setOpen(true);
  };
  void checkOrigin(fetch, __SUPPORTDESK__.apiUrl, siteKey).then((verdict) => {
    if (verdict === "refused") {
      refused = true;
      console.error(refusedOriginMessage(location.origin));
      return;
    }
    // "unknown": the check itself failed (network, or an API without the route). Show the
    // launcher as before; a refused session then says what went wrong inside the chat.
    if (document.body) mount();
    else document.addEventListener("DOMContentLoaded", mount);
  });
}

start();
