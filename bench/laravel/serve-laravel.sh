#!/usr/bin/env bash
# serve-laravel.sh start|stop|pids: deploys bench/laravel/site to $LARAVEL_RUN
# (default /tmp/plinth-bench-laravel) with production settings (APP_DEBUG
# off, config, route and view caches, opcache without timestamp checks) and
# runs PHP-FPM (pm=static) behind nginx on 127.0.0.1:$LARAVEL_PORT (default
# 18083), both on the CPUs of $SERVER_CPUS (default 0). As root (nginx and
# php-fpm drop to www-data). "pids" prints the server's processes.
# Installing the packages is run.sh's job (or: apt-get install -y
# php8.2-fpm php8.2-cli php-laravel-framework nginx).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
RUN=${LARAVEL_RUN:-/tmp/plinth-bench-laravel}
PORT=${LARAVEL_PORT:-18083}
WORKERS=${LARAVEL_WORKERS:-4}
CPUS=${SERVER_CPUS:-0}
SOCK=$RUN/php-fpm.sock
FPM=$(command -v php-fpm8.2 || command -v php-fpm || true)

pids() {
	local p
	for f in "$RUN/php-fpm.pid" "$RUN/nginx.pid"; do
		[ -s "$f" ] || continue
		p=$(cat "$f")
		[ -d "/proc/$p" ] || continue
		echo "$p"
		pgrep -P "$p" || true
	done
}

stop() {
	for f in "$RUN/nginx.pid" "$RUN/php-fpm.pid"; do
		local p
		p=$(cat "$f" 2>/dev/null || true)
		if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
			kill -QUIT "$p" 2>/dev/null || true
			for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		fi
		rm -f "$f"
	done
}

start() {
	[ -n "$FPM" ] || { echo "serve-laravel: php-fpm is not installed" >&2; exit 1; }
	stop
	mkdir -p "$RUN/tmp"
	# The application, fresh each start; the key and the seeded user survive.
	rm -rf "$RUN/site.new"
	cp -a "$here/site" "$RUN/site.new"
	if [ -d "$RUN/site" ]; then
		[ -f "$RUN/site/storage/app/users.php" ] && cp "$RUN/site/storage/app/users.php" "$RUN/site.new/storage/app/"
		rm -rf "$RUN/site"
	fi
	mv "$RUN/site.new" "$RUN/site"
	[ -s "$RUN/app.key" ] || echo "base64:$(head -c 32 /dev/urandom | base64)" > "$RUN/app.key"
	printf 'APP_ENV=production\nAPP_DEBUG=false\nAPP_KEY=%s\n' "$(cat "$RUN/app.key")" > "$RUN/site/.env"
	cd "$RUN/site"
	[ -f storage/app/users.php ] || php seed.php
	php artisan config:cache >/dev/null
	php artisan route:cache >/dev/null
	php artisan view:cache >/dev/null
	chown -R www-data:www-data storage bootstrap/cache
	sed -e "s#@RUN@#$RUN#g" -e "s#@SOCK@#$SOCK#g" -e "s#@WORKERS@#$WORKERS#g" "$here/conf/php-fpm.conf" > "$RUN/php-fpm.conf"
	sed -e "s#@RUN@#$RUN#g" -e "s#@SOCK@#$SOCK#g" -e "s#@PORT@#$PORT#g" "$here/conf/nginx.conf" > "$RUN/nginx.conf"
	# opcache settings read at startup go on the command line.
	setsid taskset -c "$CPUS" "$FPM" --nodaemonize -y "$RUN/php-fpm.conf" \
		-d opcache.enable=1 -d opcache.validate_timestamps=0 -d opcache.memory_consumption=128 \
		-d opcache.max_accelerated_files=20000 >"$RUN/php-fpm.out" 2>&1 </dev/null &
	setsid taskset -c "$CPUS" nginx -c "$RUN/nginx.conf" -p "$RUN" >"$RUN/nginx.out" 2>&1 </dev/null &
	for _ in $(seq 100); do
		if curl -fso /dev/null "http://127.0.0.1:$PORT/hello"; then
			return 0
		fi
		sleep 0.1
	done
	echo "serve-laravel: the site did not answer on :$PORT" >&2
	tail -n 20 "$RUN/php-fpm.log" "$RUN/nginx-error.log" "$RUN/site/storage/logs/laravel.log" 2>/dev/null >&2 || true
	stop
	exit 1
}

case "${1:-}" in
start) start ;;
stop) stop ;;
pids) pids ;;
*) echo "usage: $0 start|stop|pids" >&2; exit 2 ;;
esac
