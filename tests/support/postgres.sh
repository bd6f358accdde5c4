#!/usr/bin/env bash
# Runs a command beside a PostgreSQL server of its own: a new cluster in a temporary folder
# (initdb), on a port of its own with its socket in that folder and no TCP, stopped and removed
# at the end whatever the command did. The command finds the server's maintenance database in
# BAGHCHAL_TEST_POSTGRES (postgresql://baghchal@/postgres?host=DIR&port=PORT: the superuser
# baghchal, trusted on the socket) and makes a database of its own for each test.
# PostgreSQL refuses to run as root: as root, the server runs as the user nobody.
# Exit status: the command's; 77 (skipped, with a message) when PostgreSQL is not installed.
# Usage: tests/support/postgres.sh COMMAND [ARGS...]
set -uo pipefail

bindir=""
for d in "$(pg_config --bindir 2>/dev/null)" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then
    bindir=$d
    break
  fi
done
if [ -z "$bindir" ]; then
  echo "SKIPPED: PostgreSQL's server (initdb, pg_ctl, postgres) is not installed (Debian: apt-get install postgresql)"
  exit 77
fi

tmp=$(mktemp -d /tmp/baghchal-pg.XXXXXX) || exit 1
as=()
if [ "$(id -u)" -eq 0 ]; then
  chown nobody "$tmp" || exit 1
  as=(runuser -u nobody --)
fi
# Any port: with no TCP, the socket's name in the private folder is all it is used for.
port=$((20000 + RANDOM % 20000))

stop() {
  "${as[@]}" "$bindir/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 130' INT TERM

if ! (cd "$tmp" && "${as[@]}" "$bindir/initdb" -D "$tmp/data" -U baghchal -A trust -E UTF8 --locale=C --no-sync \
      >"$tmp/initdb.log" 2>&1); then
  echo "postgres.sh: initdb failed:" >&2
  cat "$tmp/initdb.log" >&2
  exit 1
fi
# fsync off: the tests kill our servers, never this one, and a test's data need not outlive it
# (a benchmark sets BAGHCHAL_POSTGRES_FSYNC=on).
if ! (cd "$tmp" && "${as[@]}" "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
      -o "-c listen_addresses= -k $tmp -p $port -c fsync=${BAGHCHAL_POSTGRES_FSYNC:-off} -c max_connections=200" \
      start >/dev/null); then
  echo "postgres.sh: the server did not start:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi

export BAGHCHAL_TEST_POSTGRES="postgresql://baghchal@/postgres?host=$tmp&port=$port"
"$@"
