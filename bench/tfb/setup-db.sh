#!/usr/bin/env bash
# setup-db.sh DATABASE_URL
#
# Creates the standard TechEmpower schema on the PostgreSQL server reachable
# with DATABASE_URL (a libpq URL, e.g.
# postgres://postgres@127.0.0.1:5432/hello_world?sslmode=disable):
#
#   world(id integer primary key, randomnumber integer not null default 0)
#       10,000 rows, ids 1..10000, randomnumber uniformly random in 1..10000
#   fortune(id integer primary key, message varchar(2048) not null)
#       the 12 rows of testdata/fortunes.tsv
#   "World"/"Fortune": the quoted copies TFB also creates
#
# Idempotent: the tables are dropped and recreated. If the URL's database does
# not exist it is created through the server's "postgres" database. It also
# tries CREATE EXTENSION pg_stat_statements and reports (without failing)
# when the module is not in shared_preload_libraries.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 DATABASE_URL" >&2
	exit 2
fi
url=$1
here=$(cd "$(dirname "$0")" && pwd)
fortunes="$here/testdata/fortunes.tsv"

# Split postgres://user@host:port/dbname?params into its database name and
# the same URL pointing at the "postgres" maintenance database.
if [[ ! $url =~ ^(postgres(ql)?://[^/?]*)(/([^?]*))?(\?.*)?$ ]]; then
	echo "setup-db: cannot parse database URL: $url" >&2
	exit 2
fi
base=${BASH_REMATCH[1]}
dbname=${BASH_REMATCH[4]}
params=${BASH_REMATCH[5]}
if [ -z "$dbname" ]; then
	echo "setup-db: the URL names no database: $url" >&2
	exit 2
fi
if [[ ! $dbname =~ ^[A-Za-z0-9_]+$ ]]; then
	echo "setup-db: database name must be letters, digits and underscores: $dbname" >&2
	exit 2
fi
admin="$base/postgres$params"

if grep -q '\\' "$fortunes"; then
	echo "setup-db: $fortunes contains a backslash, which COPY text format would interpret" >&2
	exit 1
fi

psqlq() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

exists=$(psqlq "$admin" -Atc "SELECT 1 FROM pg_database WHERE datname = '$dbname'")
if [ "$exists" != 1 ]; then
	echo "setup-db: creating database $dbname"
	psqlq "$admin" -c "CREATE DATABASE \"$dbname\" ENCODING 'UTF8' TEMPLATE template0"
fi

psqlq "$url" <<'SQL'
BEGIN;
DROP TABLE IF EXISTS world, fortune, "World", "Fortune";

CREATE TABLE world (
	id integer NOT NULL PRIMARY KEY,
	randomnumber integer NOT NULL DEFAULT 0
);
INSERT INTO world (id, randomnumber)
	SELECT x.id, least(floor(random() * 10000 + 1), 10000)
	FROM generate_series(1, 10000) AS x(id);

CREATE TABLE "World" (
	id integer NOT NULL PRIMARY KEY,
	"randomNumber" integer NOT NULL DEFAULT 0
);
INSERT INTO "World" (id, "randomNumber")
	SELECT x.id, least(floor(random() * 10000 + 1), 10000)
	FROM generate_series(1, 10000) AS x(id);

CREATE TABLE fortune (
	id integer NOT NULL PRIMARY KEY,
	message varchar(2048) NOT NULL
);
CREATE TABLE "Fortune" (
	id integer NOT NULL PRIMARY KEY,
	message varchar(2048) NOT NULL
);
COMMIT;
SQL

# pstdin is psql's own standard input, so the file is read verbatim (no
# quoting of messages in SQL).
psqlq "$url" -c '\copy fortune (id, message) FROM pstdin' <"$fortunes"
psqlq "$url" <<'SQL'
INSERT INTO "Fortune" (id, message) SELECT id, message FROM fortune;
ANALYZE world, fortune, "World", "Fortune";
SQL

rows=$(psqlq "$url" -Atc "SELECT (SELECT count(*) FROM world) || ' world, ' || (SELECT count(*) FROM fortune) || ' fortune'")
echo "setup-db: $dbname ready: $rows rows"

if ! psqlq "$url" -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' 2>/dev/null; then
	echo "setup-db: note: pg_stat_statements extension is not installed on this server; tfb-verify will count queries from pg_stat_user_tables"
elif ! psqlq "$url" -Atc 'SELECT 1 FROM pg_stat_statements LIMIT 1' >/dev/null 2>&1; then
	preload=$(psqlq "$url" -Atc 'SHOW shared_preload_libraries')
	echo "setup-db: note: pg_stat_statements is not loaded (shared_preload_libraries='$preload'); tfb-verify will count queries from pg_stat_user_tables"
else
	echo "setup-db: pg_stat_statements available"
fi
