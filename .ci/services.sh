# Sourced by .ci/up and .ci/test: makes sure PostgreSQL and Redis answer on 127.0.0.1,
# starting them when they are down and installing them (Debian packages `postgresql`,
# `redis-server`) when they are absent.
#
# Local PostgreSQL is reached as user `postgres` with password `postgres` over TCP. A fresh
# Debian install only allows the OS user `postgres` in over the socket, so the password is set
# that way the first time; servers configured for trust auth ignore it.

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {
  echo "installing $* (Debian packages)" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

postgres_ready() {
  command -v pg_isready >/dev/null && pg_isready -h 127.0.0.1 -p 5432 -q
}

ensure_postgres() {
  if ! postgres_ready; then
    if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
      apt_install postgresql
    fi
    local version
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    echo "starting PostgreSQL $version" >&2
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    for _ in $(seq 1 60); do postgres_ready && break; sleep 0.5; done
    postgres_ready || { echo "PostgreSQL did not start on 127.0.0.1:5432" >&2; return 1; }
  fi
  if ! PGPASSWORD=postgres psql -h 127.0.0.1 -U postgres -d postgres -qtAc 'SELECT 1' >/dev/null 2>&1; then
    echo "setting the local postgres user's password" >&2
    as_root runuser -u postgres -- psql -qc "ALTER USER postgres PASSWORD 'postgres'" >/dev/null
  fi
}

redis_ready() {
  local reply
  exec 3<>/dev/tcp/127.0.0.1/6379 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  read -r -t 2 reply <&3 || true
  exec 3<&- 3>&-
  [[ "$reply" == +PONG* ]]
}

ensure_redis() {
  redis_ready 2>/dev/null && return 0
  command -v redis-server >/dev/null || apt_install redis-server
  echo "starting Redis" >&2
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 \
    --save "" --appendonly no --dir /tmp --logfile "" >/dev/null
  for _ in $(seq 1 40); do redis_ready 2>/dev/null && return 0; sleep 0.25; done
  echo "Redis did not start on 127.0.0.1:6379" >&2
  return 1
}

# PgBouncer (Debian's package) for the tests and the benchmark, which start their own
# instances; the package's system service is not used.
ensure_pgbouncer() {
  command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || apt_install pgbouncer
}

ensure_rust() {
  command -v cargo >/dev/null && return 0
  echo "cargo is not installed: install the Rust toolchain (https://rustup.rs) and retry" >&2
  return 1
}

# Cargo subcommands the test command uses, built once from crates.io (a few minutes each) into
# a target directory of their own, then found on the PATH:
#   ensure_cargo_tool <subcommand> <crate> <version> [cargo install options...]
ensure_cargo_tool() {
  local subcommand=$1 crate=$2 version=$3
  shift 3
  if cargo "$subcommand" --version 2>/dev/null | grep -q "$version"; then
    return 0
  fi
  echo "installing $crate $version (crates.io)" >&2
  CARGO_TARGET_DIR="$HOME/.cache/cargo-install-target" \
    cargo install --locked --quiet "$crate@$version" "$@"
}
# Licences, sources and advisories of the dependency graph.
ensure_cargo_deny() { ensure_cargo_tool deny cargo-deny 0.20.2; }
# Checks .sqlx/ (the compile-time checked statements) against migrations/.
ensure_sqlx_cli() {
  ensure_cargo_tool sqlx sqlx-cli 0.9.0 --no-default-features --features postgres,rustls
}

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/supportdesk-target}"
# Builds use the statements checked into .sqlx/; `.ci/sqlx` checks them against migrations/.
export SQLX_OFFLINE=true
