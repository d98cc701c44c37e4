"""Reads a schemathesis HAR file: every exchange must be answered, below 500, and in JSON
(or with no body for 204 and HEAD). Prints one line and exits 1 on the first violation."""
import json
import sys

path = sys.argv[1]
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
print(f"fuzz: {path}: {len(entries)} exchanges, all non-5xx JSON")
if not entries:
    sys.exit(f"fuzz: {path}: no exchange recorded")
