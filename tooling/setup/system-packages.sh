#!/usr/bin/env bash
# The Debian packages the tests need beside Node and pnpm: Chromium (the dashboard's browser
# tests drive Debian's build through playwright-core, never a downloaded one), jq (the
# documentation test runs the documented commands, some of which pipe into jq), and Go with
# golang.org/x/mod (the receipts test builds tooling/receipts-verifier-go, which checks the
# service's checkpoints and proofs with the Go checksum database's own sumdb/note and sumdb/tlog),
# and Prometheus (the metrics test starts a real one that scrapes the server's /metrics).
#
# Run by `pnpm test` and by .ci/run alike. What is missing is installed when this user may
# install packages (root, or sudo without a password); otherwise it stops at once and prints the
# one command to run.
set -euo pipefail

missing=()
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium" ] || missing+=(chromium)
command -v jq >/dev/null 2>&1 || missing+=(jq)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
[ -d /usr/share/gocode/src/golang.org/x/mod/sumdb/note ] || missing+=(golang-golang-x-mod-dev)
command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
[ ${#missing[@]} -eq 0 ] && exit 0

install_cmd="apt-get install -y --no-install-recommends ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as_root=(sudo -n); else as_root=(none); fi
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "${as_root[*]}" = "none" ]; then
  echo "The tests need these Debian packages: ${missing[*]}. Install them with:" >&2
  echo "  sudo apt-get update && sudo $install_cmd" >&2
  [ -x "$chromium" ] || echo "(or point CHROMIUM_PATH at a Chromium of your own)" >&2
  exit 1
fi
echo "Installing the Debian packages the tests need: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine's package lists may be empty or stale: update once when the first try fails.
"${as_root[@]}" $install_cmd >/dev/null 2>&1 || { "${as_root[@]}" apt-get update -qq && "${as_root[@]}" $install_cmd >/dev/null; }
