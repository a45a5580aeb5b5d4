// The official SignalR client in a real browser (Debian's chromium through playwright-core),
// with the JSON and the MessagePack hub protocols, against the real API and hub. The page is
// plain HTML on an origin of its own (a small static server here, on the port the Rust test
// chose and allowed in CORS_ALLOWED_ORIGINS) that loads the clients' browser bundles from
// node_modules: @microsoft/signalr's dist/browser/signalr.js (global `signalR`) and
// @microsoft/signalr-protocol-msgpack's (`signalR.protocols.msgpack`). Run by
// tests/api/hub_browser_client.rs with HUB_BROWSER_TEST_CONFIG:
//   { api, port, token, conversationId, chromium }
// Each step prints `ok - ...`; the first failure prints `not ok - ...` and exits 1.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { chromium } from "playwright-core";

const cfg = JSON.parse(process.env.HUB_BROWSER_TEST_CONFIG ?? "null");
if (!cfg?.api || !cfg?.port || !cfg?.token || !cfg?.conversationId) {
  console.error("not ok - HUB_BROWSER_TEST_CONFIG must hold {api, port, token, conversationId}");
  process.exit(2);
}
const TIMEOUT = 15_000;

function step(name) {
  console.log(`ok - ${name}`);
}

const bundle = (path) => readFileSync(new URL(`node_modules/${path}`, import.meta.url));
const FILES = {
  "/": {
    type: "text/html; charset=utf-8",
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hub clients</title><link rel="icon" href="data:,">
<script src="/signalr.js"></script><script src="/signalr-protocol-msgpack.js"></script>
</head><body><h1>Hub clients</h1></body></html>`,
  },
  "/signalr.js": {
    type: "text/javascript",
    body: bundle("@microsoft/signalr/dist/browser/signalr.js"),
  },
  "/signalr-protocol-msgpack.js": {
    type: "text/javascript",
    body: bundle("@microsoft/signalr-protocol-msgpack/dist/browser/signalr-protocol-msgpack.js"),
  },
};

const server = createServer((request, response) => {
  const file = FILES[new URL(request.url, "http://page").pathname];
  response.writeHead(file ? 200 : 404, { "content-type": file?.type ?? "text/plain" });
  response.end(file?.body ?? "not found");
});
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(cfg.port, "127.0.0.1", resolve);
});
const origin = `http://127.0.0.1:${cfg.port}`;

/** In the page: connect with `protocol`, call a void method, send a message, hear it. */
async function chat({ api, token, conversationId, protocol, timeout }) {
  const { signalR } = window;
  let builder = new signalR.HubConnectionBuilder()
    .withUrl(`${api}/hubs/chat`, {
      // The token on negotiate, as a header; the browser's WebSocket then carries only the
      // single-use connection token.
      headers: { Authorization: `Bearer ${token}` },
      transport: signalR.HttpTransportType.WebSockets,
    })
    .configureLogging(signalR.LogLevel.Warning);
  if (protocol === "messagepack") {
    builder = builder.withHubProtocol(new signalR.protocols.msgpack.MessagePackHubProtocol());
  }
  const connection = builder.build();
  const heard = [];
  connection.on("MessageCreated", (payload) => {
    heard.push(payload);
  });
  connection.on("PresenceChanged", () => undefined);
  await connection.start();
  const joined = await connection.invoke("JoinConversation", conversationId);
  const body = `Hello from Chromium over ${protocol}`;
  const sent = await connection.invoke("SendMessage", conversationId, body);
  const deadline = Date.now() + timeout;
  let event;
  while (!(event = heard.find((p) => p.message?.id === sent.id))) {
    if (Date.now() > deadline) throw new Error(`no MessageCreated for ${sent.id} (${protocol})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await connection.stop();
  return { joinedIsUndefined: joined === undefined, body, sent, event };
}

/** In the page: a browser app that passes its token through `accessTokenFactory`. */
async function withAccessTokenFactory({ api, token }) {
  const { signalR } = window;
  const connection = new signalR.HubConnectionBuilder()
    .withUrl(`${api}/hubs/chat`, {
      accessTokenFactory: () => token,
      transport: signalR.HttpTransportType.WebSockets,
    })
    .configureLogging(signalR.LogLevel.None)
    .build();
  try {
    await connection.start();
    await connection.stop();
    return "connected";
  } catch (error) {
    return `refused: ${error?.message ?? error}`;
  }
}

let browser;
try {
  browser = await chromium.launch({ executablePath: cfg.chromium || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext();
  context.setDefaultTimeout(TIMEOUT);
  const page = await context.newPage();
  const consoleErrors = [];
  page.on("console", (m) => {
    if (m.type() !== "error" && m.type() !== "warning") return;
    const text = m.text().replace(/access_token=[^&'"\s]+/g, "access_token=<redacted>");
    if (m.type() === "error") consoleErrors.push(text);
    console.log(`# console ${m.type()}: ${text}`);
  });
  page.on("pageerror", (e) => console.log(`# page error: ${e.message}`));
  const urls = [];
  const sockets = [];
  page.on("request", (r) => urls.push(r.url()));
  page.on("websocket", (ws) => {
    // What kind of WebSocket frame each message from the server came in.
    const socket = { url: ws.url(), received: [] };
    sockets.push(socket);
    urls.push(ws.url());
    ws.on("framereceived", ({ payload }) => socket.received.push(typeof payload === "string" ? "text" : "binary"));
  });

  await page.goto(`${origin}/`);
  assert.equal(await page.evaluate(() => typeof window.signalR?.HubConnectionBuilder), "function");
  assert.equal(await page.evaluate(() => typeof window.signalR?.protocols?.msgpack?.MessagePackHubProtocol), "function");
  step(`the page on ${origin} loaded the official client's and the MessagePack protocol's browser bundles`);

  for (const [protocol, frame] of [["json", "text"], ["messagepack", "binary"]]) {
    const opened = sockets.length;
    const result = await page.evaluate(chat, {
      api: cfg.api,
      token: cfg.token,
      conversationId: cfg.conversationId,
      protocol,
      timeout: TIMEOUT,
    });
    assert.equal(result.joinedIsUndefined, true, "a void method resolves with undefined (no result)");
    assert.equal(result.sent.kind, "outgoing");
    assert.equal(result.sent.body, result.body);
    assert.equal(result.event.conversationId, cfg.conversationId);
    assert.equal(result.event.message.body, result.body);
    const socket = sockets[opened];
    assert.equal(sockets.length, opened + 1, "one WebSocket for the connection");
    // After the handshake's answer, the server's records: a Completion, an event, another
    // Completion (pings may come too).
    const records = socket.received.slice(1);
    assert.ok(records.length >= 3, `frames from the server (${protocol}): ${socket.received}`);
    assert.deepEqual([...new Set(records)], [frame], `the server sends ${protocol} records in ${frame} frames`);
    step(`${protocol}: connected from the browser with the headers option, called JoinConversation and SendMessage, heard MessageCreated (${frame} frames)`);
  }

  const leaked = urls.filter((u) => u.includes("access_token") || u.includes(cfg.token));
  assert.deepEqual(leaked, [], "no token in any URL the browser requested");
  step("no token in any URL the browser requested");

  const before = sockets.length;
  const refused = await page.evaluate(withAccessTokenFactory, { api: cfg.api, token: cfg.token });
  assert.match(refused, /^refused: /, "a token in the WebSocket's URL is not accepted");
  assert.ok(
    sockets.slice(before).some((s) => s.url.includes("access_token=")),
    "the browser client put accessTokenFactory's token in the WebSocket's URL",
  );
  // The 401 itself is visible only in Chromium's console line for the failed WebSocket.
  assert.ok(
    consoleErrors.some((e) => e.includes("access_token=") && /HTTP Authentication failed|401/.test(e)),
    `the WebSocket with the token in its URL was answered 401: ${consoleErrors.join(" | ")}`,
  );
  step(`accessTokenFactory in a browser: the token goes in the URL, and the hub refuses it (${refused})`);
  console.log("all passed");
} catch (error) {
  console.log(`not ok - ${error?.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
  server.close();
}
