"""What one person received in a storm-person run (scripts/bench): the texts the sink
recorded, read against the load's last 2xx and the channel's throttle.

Usage: storm_person.py MESSAGES_JSON LOAD_JSON ALERTS WATCH_SECONDS
Prints one JSON object: messages (within WATCH_SECONDS of the first send), people (distinct
numbers texted), firstAllS (last 2xx → the first text naming all ALERTS incidents, null when
none did), afterOpenS (the same text's lateness after the throttle window it waited for
opened: 60 s after the text before it) and largest (the most incidents one text named).
"""
import json
import re
import sys

messages_path, load_path, alerts, watch = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
texts = json.load(open(messages_path))["messages"]
load = json.loads(open(load_path).read().strip().splitlines()[-1])
first_send, last_ok = load["firstSendUs"], load["lastOkUs"]

# A bundle says "belay: 14 incidents need you"; a page of its own names one incident.
named = re.compile(r"(\d+) incidents need you")


def incidents_named(body):
    m = named.search(body)
    return int(m.group(1)) if m else 1


window = [t for t in texts if t["us"] - first_send <= watch * 1e6]
out = {
    "messages": len(window),
    "people": len({t["to"] for t in window}),
    "largest": max((incidents_named(t["body"]) for t in window), default=0),
    "firstAllS": None,
    "afterOpenS": None,
}
for k, t in enumerate(window):
    if incidents_named(t["body"]) >= alerts:
        out["firstAllS"] = round((t["us"] - last_ok) / 1e6, 3)
        if k > 0:
            out["afterOpenS"] = round((t["us"] - window[k - 1]["us"]) / 1e6 - 60, 3)
        break
print(json.dumps(out, separators=(",", ":")))
