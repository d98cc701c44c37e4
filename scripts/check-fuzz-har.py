"""Reads a schemathesis HAR file: every exchange must be answered, below 500, and in JSON
(or with no body for 204 and HEAD). Prints one line and exits 1 on the first violation.

Each further argument, "<METHOD> <path template>" (e.g. "GET /users/{userId}/reports/{year}-{month}"),
names an operation the run must have sent at least one request to: a fuzz run that never reached
the operations it is meant to exercise (an owned query parameter, several parameters in one path
segment) would otherwise pass without testing them."""
import json
import re
import sys
from urllib.parse import urlsplit

path, *required = sys.argv[1:]
entries = json.load(open(path, encoding="utf-8"))["log"]["entries"]
for entry in entries:
    request, response = entry["request"], entry["response"]
    where = f"{request['method']} {request['url']} -> {response['status']}"
    content_type = next((h["value"] for h in response["headers"] if h["name"].lower() == "content-type"), "")
    empty = response["status"] == 204 or request["method"] == "HEAD"
    if response["status"] == 0 or response["status"] >= 500:
        sys.exit(f"fuzz: {path}: {where}: no answer or a server error")
    if not empty and not content_type.startswith("application/json"):
        sys.exit(f"fuzz: {path}: {where}: content-type {content_type!r} is not JSON")
if not entries:
    sys.exit(f"fuzz: {path}: no exchange recorded")


def reached(operation):
    """Whether a request went to the operation: its template matched at the end of the URL's path
    (after the server prefix), each {parameter} standing for one or more characters other than /."""
    method, template = operation.split(" ", 1)
    pattern = re.compile("".join("[^/]+" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{[^}]+\})", template)) + "$")
    return any(e["request"]["method"] == method and pattern.search(urlsplit(e["request"]["url"]).path) for e in entries)


for operation in required:
    if not reached(operation):
        sys.exit(f"fuzz: {path}: no request reached {operation}")
print(f"fuzz: {path}: {len(entries)} exchanges, all non-5xx JSON" + (f"; reached {', '.join(required)}" if required else ""))
