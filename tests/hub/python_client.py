"""The chat hub as the Python SignalR client `signalrcore` sees it, with its defaults.

Run by tests/api/hub_python_client.rs, which starts the API, creates a workspace and a
conversation and passes HUB_TEST_CONFIG (JSON):
    {api: base URL, token: workspace token, conversationId, protocol: "json" or "messagepack"}

The client negotiates as it does by default (signalrcore 1.0.2 sends no negotiateVersion,
so the server answers version 0 and the client connects with `id=<connectionId>`; its hub
protocol handshake then carries version 0). The token comes from `access_token_factory`,
which signalrcore sends as `Authorization: Bearer` on negotiate and on the WebSocket upgrade,
never in a URL. Each step prints `ok - ...`; the first failure prints `not ok - ...` and exits 1;
success ends with `all passed`.
"""

import json
import os
import queue
import threading
import traceback
import uuid

from signalrcore.hub_connection_builder import HubConnectionBuilder
from signalrcore.protocol.base_hub_protocol import BaseHubProtocol
from signalrcore.protocol.messagepack_protocol import MessagePackHubProtocol
from signalrcore.types import HubProtocolEncoding

WAIT = 10  # seconds for any one answer or event

cfg = json.loads(os.environ["HUB_TEST_CONFIG"])
protocol = cfg.get("protocol", "json")
assert protocol in ("json", "messagepack"), f"unknown protocol {protocol!r}"

# The Completion records as they came off the wire, by invocation id, to check what a void
# method's Completion holds (the client's own objects fill absent fields with None). Only
# observed: the decoding itself is signalrcore's.
raw_completions = {}
_get_message = BaseHubProtocol.get_message
_decode_message = MessagePackHubProtocol._decode_message


def _recording_get_message(dict_message):
    if dict_message.get("type") == 3:
        raw_completions[dict_message.get("invocationId")] = dict(dict_message)
    return _get_message(dict_message)


def _recording_decode_message(self, raw):
    if raw and raw[0] == 3:
        raw_completions[raw[2]] = list(raw)
    return _decode_message(self, raw)


BaseHubProtocol.get_message = staticmethod(_recording_get_message)
MessagePackHubProtocol._decode_message = _recording_decode_message


def step(name):
    print(f"ok - {name} ({protocol})", flush=True)


class Hub:
    """One connection: its events, and each call's Completion (or error) by invocation id."""

    def __init__(self, token):
        builder = HubConnectionBuilder().with_url(
            f"{cfg['api']}/hubs/chat",
            options={"access_token_factory": lambda: token},
        )
        if protocol == "messagepack":
            builder = builder.with_hub_protocol(HubProtocolEncoding.binary)
        self.connection = builder.build()
        self.opened = threading.Event()
        self.closed = threading.Event()
        self.events = queue.Queue()
        self.pending = {}
        self.connection.on_open(self.opened.set)
        self.connection.on_close(self.closed.set)
        self.connection.on_error(self._error)
        for name in ("MessageCreated", "ConversationCreated", "ConversationUpdated", "Typing"):
            self.connection.on(name, lambda arguments, name=name: self.events.put((name, arguments)))

    def _error(self, message):
        answer = self.pending.get(getattr(message, "invocation_id", None))
        if answer is not None:
            answer.put(message)
        else:
            print(f"# unexpected error: {message!r} {getattr(message, 'error', '')}", flush=True)

    def start(self):
        self.connection.start()
        if not self.opened.wait(WAIT):
            raise AssertionError("the connection did not open (negotiate, upgrade or handshake failed)")

    def call(self, method, arguments):
        """Invokes `method`; its Completion message (result or error)."""
        invocation_id = str(uuid.uuid4())
        answer = queue.Queue()
        self.pending[invocation_id] = answer
        self.connection.invoke(method, arguments, on_invocation=answer.put, invocation_id=invocation_id)
        try:
            completion = answer.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no Completion for {method} within {WAIT} s") from None
        del self.pending[invocation_id]
        assert completion.invocation_id == invocation_id
        return completion

    def result(self, method, arguments):
        completion = self.call(method, arguments)
        assert not completion.error, f"{method} failed: {completion.error}"
        return completion.result

    def event(self, name, test=lambda payload: True):
        """The first `name` event passing `test`, skipping others."""
        try:
            while True:
                seen, arguments = self.events.get(timeout=WAIT)
                if seen == name and test(arguments[0]):
                    return arguments[0]
        except queue.Empty:
            raise AssertionError(f"no {name} event within {WAIT} s") from None

    def stop(self):
        self.connection.stop()


def assert_void_completion(completion, method):
    """A void method's Completion: neither a result nor an error, not even a null one."""
    assert completion.error is None and completion.result is None, completion.__dict__
    raw = raw_completions[completion.invocation_id]
    if protocol == "json":
        assert "result" not in raw and "error" not in raw, f"{method}'s Completion: {raw}"
    else:
        # [3, headers, invocationId, resultKind]: resultKind 2 is "void", with no result item.
        assert raw[3] == 2 and len(raw) == 4, f"{method}'s Completion: {raw}"


def main():
    conversation_id = cfg["conversationId"]
    hub = Hub(cfg["token"])
    hub.start()
    url = hub.connection.url
    assert "access_token" not in url and cfg["token"] not in url, f"a token in the URL: {url}"
    assert "id=" in url, f"the client connects with id=<connectionId>: {url}"
    step("connected through signalrcore's own negotiate, token from access_token_factory")

    assert_void_completion(hub.call("JoinConversation", [conversation_id]), "JoinConversation")
    step("JoinConversation completes as a void method (no result)")

    assert_void_completion(hub.call("Typing", [conversation_id, True]), "Typing")
    step("Typing completes as a void method (no result)")

    body = f"Hello from Python over {protocol}"
    sent = hub.result("SendMessage", [conversation_id, body])
    assert sent["kind"] == "outgoing", sent
    assert sent["body"] == body, sent
    created = hub.event("MessageCreated", lambda p: p["message"]["id"] == sent["id"])
    assert created["conversationId"] == conversation_id, created
    assert created["message"]["body"] == body, created
    assert isinstance(created["message"]["author"]["displayName"], str), created
    step("SendMessage returns the message, and MessageCreated is heard")

    note = hub.result("SendNote", [conversation_id, "Only for the team"])
    assert note["kind"] == "note", note
    hub.event("MessageCreated", lambda p: p["message"]["id"] == note["id"])
    step("SendNote returns the note, and MessageCreated is heard")

    refused = hub.call("SendMessage", [str(uuid.uuid4()), "Not ours"])
    assert refused.error == "conversation not found", refused.__dict__
    assert refused.result is None
    step("a hub error reaches the caller as its message")

    hub.stop()
    print("all passed", flush=True)


try:
    main()
except Exception:  # noqa: BLE001 - the test's one report of what went wrong
    print(f"not ok - {traceback.format_exc()}", flush=True)
    os._exit(1)
# Without waiting for signalrcore's threads (its keep-alive timer among them).
os._exit(0)
