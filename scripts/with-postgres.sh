#!/usr/bin/env bash
# Run a command with a throwaway PostgreSQL server, then stop and delete it.
#
#     scripts/with-postgres.sh [--durable] COMMAND [ARGS...]
#
# The server comes from the distribution's packages (installed with apt-get if
# missing and we are root), runs as an unprivileged user (postgres when we are
# root, else ourselves) in a fresh temporary directory, listens on a Unix
# socket in that directory only (no TCP), and is stopped and removed when the
# command ends, whatever happens (trap). COMMAND sees TEST_DATABASE_URL, a
# postgresql:// URL for it; its exit status is the script's.
#
# By default the server skips fsync (a test server: nothing in it must survive
# a power cut). --durable keeps PostgreSQL's defaults (fsync, synchronous
# commit), which is what bench/scale.py measures.
set -euo pipefail

durable=0
if [[ "${1:-}" == "--durable" ]]; then
    durable=1
    shift
fi
if [[ $# -eq 0 ]]; then
    echo "usage: $0 [--durable] COMMAND [ARGS...]" >&2
    exit 2
fi

find_bindir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [[ -n "$dir" && -x "$dir/initdb" ]]; then
        echo "$dir"
    elif command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
    fi
}

bindir=$(find_bindir)
if [[ -z "$bindir" ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "with-postgres: no PostgreSQL server found; install the 'postgresql' package" >&2
        exit 1
    fi
    echo "with-postgres: installing PostgreSQL from the distribution's packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends postgresql >/dev/null
    bindir=$(find_bindir)
fi

# initdb refuses to run as root: the server runs as postgres (created by the package).
as_user=()
if [[ $(id -u) -eq 0 ]]; then
    as_user=(runuser -u postgres --)
fi

workdir=$(mktemp -d "${TMPDIR:-/tmp}/pgtest.XXXXXX")
chmod 755 "$workdir"
if [[ $(id -u) -eq 0 ]]; then
    chown postgres: "$workdir"
fi
data="$workdir/data"
log="$workdir/server.log"

cleanup() {
    "${as_user[@]}" "$bindir/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"${as_user[@]}" "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 \
    --locale=C.UTF-8 >"$workdir/initdb.log" 2>&1 || {
    cat "$workdir/initdb.log" >&2
    exit 1
}

options="-c listen_addresses='' -c unix_socket_directories='$workdir' -c max_connections=200"
if [[ $durable -eq 0 ]]; then
    options+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi
if ! "${as_user[@]}" "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 -o "$options" start \
    >/dev/null; then
    cat "$log" >&2
    exit 1
fi

export TEST_DATABASE_URL="postgresql://postgres@/postgres?host=$workdir"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') at $workdir" >&2
set +e
"$@"
status=$?
set -e
exit $status
