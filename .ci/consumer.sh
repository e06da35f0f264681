#!/usr/bin/env bash
# The consumer test: Plinth as a user gets it, from a rehearsal proxy that
# `go run ./internal/release -version VERSION -proxy DIR` wrote, in a module
# outside the repository, with no go.work and no replace directive.
#   bash .ci/consumer.sh DIR VERSION
set -euo pipefail
proxy=$(cd "$1" && pwd)
version=$2
repo=$(cd "$(dirname "$0")/.." && pwd)

work=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The rehearsal proxy first, then the usual one. GONOSUMDB, not GOPRIVATE:
# GOPRIVATE would also bypass the proxy. The machine's module cache is
# shared (third-party modules are neither fetched nor compiled again), less
# its copies of Plinth at this version: an earlier rehearsal cached there
# must not stand in for this one.
export GOPROXY="file://$proxy,$(go env GOPROXY)"
export GONOSUMDB="github.com/plinth-go/*"
export GOWORK=off GOFLAGS="-mod=mod"
unset GOPRIVATE GONOPROXY PLINTH_ADDR
cache=$(go env GOMODCACHE)
if [ -d "$cache/github.com/plinth-go" ]; then
  find "$cache/github.com/plinth-go" -maxdepth 3 -type d -name "*@$version" -prune -exec chmod -R u+w {} + -exec rm -rf {} +
fi
if [ -d "$cache/cache/download/github.com/plinth-go" ]; then
  find "$cache/cache/download/github.com/plinth-go" -path "*/@v/$version.*" -type f -delete
fi

echo "consumer: a new module, go get every released module at $version"
mkdir "$work/shop"
cd "$work/shop"
go mod init example.com/shop >/dev/null 2>&1
mods=""
for m in "" /data /ws /redisstore /observe /jobs/riverjobs /mail/smtpmail /middleware/compress /cache/ottercache; do
  mods+=" github.com/plinth-go/plinth$m@$version"
done
# shellcheck disable=SC2086
go get $mods

echo "consumer: the README's minimal app builds and serves"
awk '/^## A minimal app/{on=1} on&&/^```go$/{grab=1; next} grab&&/^```$/{exit} grab{print}' "$repo/README.md" >main.go
grep -q 'plinth.New()' main.go || { echo "FAILED: no minimal app found in README.md" >&2; exit 1; }
cp "$repo/.ci/consumer/shop_test.go" .
go mod tidy
go vet ./...
go test -count=1 ./...
go build -o shop .
port=$((20000 + RANDOM % 2000))
PLINTH_ADDR="127.0.0.1:$port" ./shop >server.log 2>&1 &
server=$!
for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/hello/Ada" && break; sleep 0.1; done
got=$(curl -fsS "http://127.0.0.1:$port/hello/Ada")
[ "$got" = "Hello, Ada!" ] || { echo "FAILED: GET /hello/Ada answered $got" >&2; cat server.log >&2; exit 1; }
code=$(curl -s -o problem.json -w '%{http_code}' "http://127.0.0.1:$port/users/0")
[ "$code" = 404 ] && grep -q '"status":404' problem.json || { echo "FAILED: GET /users/0 answered $code: $(cat problem.json)" >&2; exit 1; }
kill -TERM "$server"; wait "$server" || true; server=""
! grep -q 'replace' go.mod || { echo "FAILED: the consumer's go.mod has a replace directive" >&2; exit 1; }
echo "consumer: after go mod tidy, go.mod requires the $(grep -c 'github.com/plinth-go/plinth' go.mod) Plinth modules the app imports, all at $version:"
grep 'github.com/plinth-go/plinth' go.mod

echo "consumer: plinth new from the released CLI, no --replace"
cd "$work"
go run "github.com/plinth-go/plinth/cmd/plinth@$version" new shopweb --template web
cd shopweb
! grep -q 'replace' go.mod || { echo "FAILED: plinth new wrote a replace directive" >&2; exit 1; }
grep -q "github.com/plinth-go/plinth $version" go.mod || { echo "FAILED: the new project does not require plinth $version:" >&2; cat go.mod >&2; exit 1; }
go vet ./...
go test -count=1 ./...
go build -o /dev/null .
echo "consumer: passed"
