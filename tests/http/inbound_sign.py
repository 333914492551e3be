#!/usr/bin/env python3
"""Signs inbound test requests the way Twilio and Slack document it, with Python's own
hmac and hashlib, independently of belay's code (tests/http/answer_test.cpp).

  inbound_sign.py twilio <auth token> <url>   stdin: the form body as sent
      base64(HMAC-SHA1(token, url + every POST field's name and value, sorted by name))
      https://www.twilio.com/docs/usage/webhooks/webhooks-security
  inbound_sign.py slack <signing secret> <timestamp>   stdin: the raw body
      "v0=" + hex(HMAC-SHA256(secret, "v0:" + timestamp + ":" + body))
      https://api.slack.com/authentication/verifying-requests-from-slack
"""
import base64
import hashlib
import hmac
import sys
from urllib.parse import parse_qsl


def main():
    kind, key, extra = sys.argv[1], sys.argv[2], sys.argv[3]
    body = sys.stdin.buffer.read().decode("utf-8")
    if kind == "twilio":
        fields = sorted(parse_qsl(body, keep_blank_values=True))
        text = extra + "".join(name + value for name, value in fields)
        mac = hmac.new(key.encode(), text.encode(), hashlib.sha1).digest()
        print(base64.b64encode(mac).decode(), end="")
    elif kind == "slack":
        text = "v0:" + extra + ":" + body
        print("v0=" + hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest(), end="")
    else:
        sys.exit("unknown kind " + kind)


main()
