"""Parses a calendar rendered by belay with the icalendar library (python3-icalendar)
and checks it against what the C++ test expects, so the feed is known to be read by a
real RFC 5545 parser rather than only by our own string checks.

Usage: ical_check.py <file.ics> <expected.json>, the JSON being
[[summary, start, end], ...] with start and end UTC times "YYYY-MM-DDTHH:MM:SSZ". Exits non-zero with a
message on the first difference."""

import json
import sys
from datetime import timedelta

from icalendar import Calendar


def utc_text(value):
    if value.tzinfo is None or value.utcoffset() != timedelta(0):
        raise SystemExit(f"{value!r} is not a UTC time")
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def main(path, expected_path):
    with open(path, "rb") as f:
        calendar = Calendar.from_ical(f.read())
    with open(expected_path, encoding="utf-8") as f:
        expected = json.load(f)
    if str(calendar.get("VERSION")) != "2.0" or not calendar.get("PRODID"):
        raise SystemExit("VERSION 2.0 and PRODID are required")
    events = list(calendar.walk("VEVENT"))
    if len(events) != len(expected):
        raise SystemExit(f"{len(events)} events, expected {len(expected)}")
    uids = set()
    for event, (summary, start, end) in zip(events, expected):
        got = (str(event["SUMMARY"]), utc_text(event["DTSTART"].dt),
               utc_text(event["DTEND"].dt))
        if got != (summary, start, end):
            raise SystemExit(f"event {got}, expected {(summary, start, end)}")
        if not event.get("DTSTAMP"):
            raise SystemExit(f"event {got} has no DTSTAMP")
        uids.add(str(event["UID"]))
    if len(uids) != len(events):
        raise SystemExit("UIDs are not unique")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
