#!/usr/bin/env bash
# smoke.sh: the Laravel site of run.sh answers its routes: GET /hello, GET /
# with a CSRF token, POST /login with it (303), GET /account signed in.
# Skipped with a message when PHP-FPM, nginx or Debian's Laravel is not
# installed (bench/laravel/run.sh installs them) or when not root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v php-fpm8.2 >/dev/null || ! command -v nginx >/dev/null || ! command -v python3 >/dev/null ||
	[ ! -f /usr/share/php/Illuminate/Foundation/Application.php ]; then
	echo "bench/laravel smoke: skipped: php8.2-fpm, nginx, python3 or php-laravel-framework not installed (bench/laravel/run.sh installs them)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "bench/laravel smoke: skipped: needs root (php-fpm and nginx drop to www-data)"
	exit 0
fi
export LARAVEL_RUN=${LARAVEL_RUN:-/tmp/plinth-laravel-smoke} LARAVEL_PORT=${LARAVEL_PORT:-18093} LARAVEL_WORKERS=2
trap '"$here/serve-laravel.sh" stop' EXIT
"$here/serve-laravel.sh" start
base=http://127.0.0.1:$LARAVEL_PORT
[ "$(curl -fsS "$base/hello")" = "Hello, World!" ] || { echo "GET /hello: wrong answer" >&2; exit 1; }
# The security headers of Plinth's default layer: the short set on text,
# helmet's on pages.
hdr=$(curl -fsS -D - -o /dev/null "$base/hello")
grep -qi "^content-security-policy: default-src 'none'; frame-ancestors 'none'" <<<"$hdr" && grep -qi '^x-request-id: ' <<<"$hdr" &&
	! grep -qi '^x-frame-options' <<<"$hdr" || { echo "GET /hello: not the short set of security headers: $hdr" >&2; exit 1; }
hdr=$(curl -fsS -D - -o /dev/null "$base/")
grep -qi '^x-frame-options: SAMEORIGIN' <<<"$hdr" && grep -qi '^cross-origin-opener-policy: same-origin' <<<"$hdr" ||
	{ echo "GET /: not helmet's security headers: $hdr" >&2; exit 1; }
signed=$(CSRF_FIELD=_token python3 "$here/wrk/tokens.py" "$base/" 1 login | cut -f1)
curl -fsS -H "Cookie: $signed" "$base/account" | grep -q '<dd id="email">demo@example.com</dd>' ||
	{ echo "GET /account signed in: no account page" >&2; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $signed" --data 'email=demo@example.com&password=demo-password' "$base/login")
[ "$code" = 419 ] || { echo "POST /login without a CSRF token: $code, want 419" >&2; exit 1; }
echo "bench/laravel smoke: the Laravel site answers /hello, /, POST /login and /account"
