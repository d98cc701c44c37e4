#!/usr/bin/env bash
# Installs Chromium from the Debian packages when no Chromium is on the PATH (the audit page test
# opens `svcgate audit --html` in it). Prints the path of the browser as its only line on stdout.
# With --find it installs nothing and fails when Chromium is missing.
set -euo pipefail

for name in chromium chromium-browser; do
  if command -v "$name" >/dev/null; then
    command -v "$name"
    exit 0
  fi
done

if [ "${1:-}" = "--find" ]; then
  echo "Chromium is not installed; run 'bash scripts/install-chromium.sh' (Debian packages, needs root) or 'make test'" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null || [ "$(id -u)" -ne 0 ]; then
  echo "install-chromium: needs apt-get as root; install Chromium another way and put it on the PATH" >&2
  exit 1
fi

echo "install-chromium: installing chromium from the Debian packages" >&2
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
command -v chromium
