"""Subscribes a session's user through a signed Stripe webhook (checkout.session.completed), as Stripe would deliver it.

Usage: stripe-subscribe.py BASE_URL SESSION_TOKEN WEBHOOK_SECRET. Used by the edge harness (scripts/lib/py-edge.sh) so
the billing portal has a customer to open. Prints the webhook's answer; exits non-zero when it is not a 2xx.
"""

import hashlib
import hmac
import json
import sys
import time
import urllib.request


def main() -> None:
    base, token, secret = sys.argv[1:4]
    request = urllib.request.Request(base + "/v1/settings", headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as response:
        user_id = json.load(response)["user"]["id"]
    now = int(time.time())
    session = {
        "id": "cs_edge_harness", "object": "checkout.session", "mode": "subscription",
        "customer": "cus_edge_harness", "subscription": "sub_edge_harness",
        "client_reference_id": user_id, "metadata": {"userId": user_id},
    }
    event = {"id": f"evt_edge_harness_{now}", "object": "event", "type": "checkout.session.completed",
             "created": now, "data": {"object": session}}
    body = json.dumps(event).encode()
    signature = hmac.new(secret.encode(), f"{now}.".encode() + body, hashlib.sha256).hexdigest()
    request = urllib.request.Request(
        base + "/v1/billing/webhook", data=body, method="POST",
        headers={"Content-Type": "application/json", "Stripe-Signature": f"t={now},v1={signature}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        print(response.read().decode())


if __name__ == "__main__":
    main()
