#!/bin/sh
# Rolling upgrade of the web@ instances on this host, one at a time.
#
#   sudo ./rolling-upgrade.sh ./web.new              # ports 8081 8082 8083
#   sudo ./rolling-upgrade.sh ./web.new 8081 8082    # or the ports named
#
# `systemctl reload` is an in-place upgrade (docs/deploy.md): the old process
# serves until the new one is ready, so no port stops answering. systemctl
# returns at once, so the script waits for the PID file to name a new process
# and for /readyz to answer 200 before it moves to the next instance. It stops
# at the first instance that does not upgrade; that instance still runs, and
# the previous binary is put back so that a restart does not pick up the new one.
set -eu

new=$1
shift
ports=${*:-8081 8082 8083}
bin=/usr/local/bin/web

cp -p "$bin" "$bin.previous"
# A new file renamed over the old one: the running processes keep theirs.
install -m 755 "$new" "$bin.tmp"
mv "$bin.tmp" "$bin"

for port in $ports; do
	pidfile=/run/web/$port/web.pid
	old=$(cat "$pidfile")
	systemctl reload "web@$port"

	# The new process gets PLINTH_UPGRADE_TIMEOUT (30s by default) to become
	# ready. A failed upgrade rewrites the PID file with the old PID.
	waited=0
	while :; do
		pid=$(cat "$pidfile" 2>/dev/null || true)
		if [ -n "$pid" ] && [ "$pid" != "$old" ]; then
			break
		fi
		if [ "$waited" -ge 40 ]; then
			echo "web@$port: not upgraded after ${waited}s (journalctl -u web@$port says why); putting $bin.previous back" >&2
			mv "$bin.previous" "$bin"
			exit 1
		fi
		sleep 1
		waited=$((waited + 1))
	done

	# The new process was ready before it wrote the PID file; this checks it
	# from outside, as the load balancer does.
	waited=0
	until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz"; do
		if [ "$waited" -ge 30 ]; then
			echo "web@$port: /readyz not 200 after ${waited}s (new PID $pid)" >&2
			exit 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
	echo "web@$port: upgraded, PID $old -> $pid"
done
rm -f "$bin.previous"
