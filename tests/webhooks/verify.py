"""Verifies webhook requests with the Standard Webhooks reference library for Python
(`standardwebhooks` from PyPI), which nobody here wrote: run by workers/tests/worker/webhooks.rs.

Reads a JSON file: [{"secret": "whsec_...", "headers": {name: value}, "body": "..."}, ...].
Each request must verify under its secret. Prints `ok - <webhook-id>` per request; exits 1 on
the first that does not verify, 2 on a bad file.
"""

import json
import sys

from standardwebhooks.webhooks import Webhook


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: verify.py REQUESTS.json", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        requests = json.load(f)
    for request in requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        try:
            payload = Webhook(request["secret"]).verify(request["body"], headers)
        except Exception as error:  # the library raises its own WebhookVerificationError
            print(f"not ok - {headers.get('webhook-id')}: {error}")
            return 1
        print(f"ok - {headers.get('webhook-id')} {payload.get('type')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
