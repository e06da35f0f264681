#!/usr/bin/env bash
# Browser tests of examples/web: npm's playwright-core drives Debian's
# chromium against the example, built once here; the tests start and stop
# the servers themselves on free ports of 127.0.0.1.
#
#	bash examples/web/browser/run.sh
#
# PLINTH_TEST_REDIS and PLINTH_TEST_POSTGRES (as .ci/run sets them) enable
# the tests of the Redis and PostgreSQL session stores; without them those
# tests are skipped with a message naming the variable. Extra arguments go to
# `node --test` (e.g. --test-name-pattern=CSRF).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
chromium="${PLINTH_CHROMIUM:-/usr/bin/chromium}"

fail() { echo "examples/web/browser/run.sh: $*" >&2; exit 1; }

# 1. The browser: Debian's chromium.
if [ ! -x "$chromium" ]; then
	[ "$chromium" = /usr/bin/chromium ] || fail "PLINTH_CHROMIUM=$chromium is not an executable"
	echo "chromium is missing: installing Debian's package" >&2
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || fail "chromium is not installed and installing it needs root (apt-get install chromium)"
		sudo="sudo -n"
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -q >&2 || fail "apt-get update failed: cannot install chromium"
	$sudo apt-get install -y -q chromium >&2 || fail "apt-get install chromium failed"
	[ -x "$chromium" ] || fail "chromium installed but $chromium is missing"
fi
"$chromium" --version 2>/dev/null || fail "$chromium --version failed"

# 2. playwright-core, at the version package-lock.json pins.
command -v node >/dev/null || fail "node is not installed (Node 20 or later is needed)"
command -v npm >/dev/null || fail "npm is not installed"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || fail "node $(node --version) is too old: Node 20 or later is needed"
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci failed"

# 3. The example, built once.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/webexample" ./examples/web) || fail "go build ./examples/web failed"

# 4. The tests. The timeouts are backstops, well above a run on a quiet
# machine (.ci/run prints its time), for a loaded one: each server starts
# on a new SQLite file, migrates it and hashes the demo account's password.
cd "$here"
WEB_BIN="$tmp/webexample" PLINTH_CHROMIUM="$chromium" \
	timeout -k 10 420 node --test --test-reporter=spec --test-timeout=300000 "$@" web.test.mjs
