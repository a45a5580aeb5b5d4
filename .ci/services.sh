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

# PgBouncer for the tests and the benchmark, which start their own process (not the system
# service). Transaction pooling needs PgBouncer 1.21 or later (it re-prepares named statements
# on whichever server connection a client gets). Debian 12 packages 1.18, so when the
# PgBouncer found is older, Debian 13's package source (1.24.1 with Debian's patches, checked
# against the digests of its Sources index) is built once into ~/.cache (about 30 s).
# Exports PGBOUNCER, the binary the Rust harness starts.
PGBOUNCER_DEBIAN_VERSION=1.24.1-1+deb13u2
PGBOUNCER_ORIG_SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
PGBOUNCER_DEBIAN_SHA256=2325bcaa2e71919d399b9e5aef5b94ff988fc1f1d296908c3937b682b7be5cbb

# Succeeds when $1 is a PgBouncer of version 1.21 or later.
pgbouncer_supports_prepared() {
  local version
  version=$("$1" --version 2>/dev/null | awk 'NR == 1 {print $2}')
  [ -n "$version" ] && [ "$(printf '%s\n1.21\n' "$version" | sort -V | head -n 1)" = 1.21 ]
}

ensure_pgbouncer() {
  local found
  for found in "${PGBOUNCER:-}" "$(command -v pgbouncer || true)" /usr/sbin/pgbouncer; do
    if [ -n "$found" ] && [ -x "$found" ] && pgbouncer_supports_prepared "$found"; then
      export PGBOUNCER="$found"
      return 0
    fi
  done
  local upstream=${PGBOUNCER_DEBIAN_VERSION%%-*}
  local prefix="$HOME/.cache/supportdesk-tools/pgbouncer-$PGBOUNCER_DEBIAN_VERSION"
  if [ ! -x "$prefix/bin/pgbouncer" ]; then
    echo "building PgBouncer $PGBOUNCER_DEBIAN_VERSION (Debian 13's source package)" >&2
    local need=()
    command -v make >/dev/null || need+=(make)
    command -v gcc >/dev/null || need+=(gcc)
    command -v pkg-config >/dev/null || need+=(pkg-config)
    dpkg -s libevent-dev >/dev/null 2>&1 || need+=(libevent-dev)
    dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
    [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
    local src pool=http://deb.debian.org/debian/pool/main/p/pgbouncer
    src=$(mktemp -d)
    # Chained with && (set -e does not apply inside a command whose status is tested), so a
    # failed download or digest stops the build.
    (
      cd "$src" &&
      curl -fsSL --retry 3 -o orig.tar.gz "$pool/pgbouncer_$upstream.orig.tar.gz" &&
      curl -fsSL --retry 3 -o debian.tar.xz "$pool/pgbouncer_$PGBOUNCER_DEBIAN_VERSION.debian.tar.xz" &&
      printf '%s  orig.tar.gz\n%s  debian.tar.xz\n' \
        "$PGBOUNCER_ORIG_SHA256" "$PGBOUNCER_DEBIAN_SHA256" | sha256sum --check --quiet &&
      tar xzf orig.tar.gz &&
      cd "pgbouncer-$upstream" &&
      tar xJf ../debian.tar.xz &&
      while read -r patch; do
        if [ -n "$patch" ]; then patch -p1 --quiet < "debian/patches/$patch" || exit 1; fi
      done < debian/patches/series &&
      ./configure --prefix="$prefix" --without-cares --without-pam --without-systemd >/dev/null &&
      make -j"$(nproc)" >/dev/null &&
      make install >/dev/null
    ) || { rm -rf "$src"; echo "building PgBouncer failed" >&2; return 1; }
    rm -rf "$src"
  fi
  export PGBOUNCER="$prefix/bin/pgbouncer"
}

# The Node packages of a folder with a package-lock.json, installed as locked (`npm ci`) when
# absent or older than the lock file. Node 20 and npm must be on the machine.
ensure_node_packages() {
  local dir=$1
  command -v npm >/dev/null || { echo "npm is not installed: install Node.js 20" >&2; return 1; }
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
    echo "installing the Node packages of $dir (npm ci)" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    touch "$dir/node_modules"
  fi
}

# The Python packages of a pinned requirements file, in a virtual environment outside the
# clone (python3 and its venv module from Debian when absent), made anew whenever the file
# changes: ensure_python_venv <requirements.txt>. Exports HUB_PYTHON, its interpreter, which
# tests/api/hub_python_client.rs runs.
ensure_python_venv() {
  local requirements=$1
  local venv="${SUPPORTDESK_VENV:-$HOME/.cache/supportdesk-venv}"
  local digest
  digest=$(sha256sum "$requirements" | cut -d ' ' -f 1)
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$digest" ]; then
    command -v python3 >/dev/null || apt_install python3
    # Debian leaves ensurepip (which venv needs) to the python3-venv package.
    python3 -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv
    echo "creating the Python environment $venv for $requirements (pip)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$requirements"
    echo "$digest" >"$venv/.requirements.sha256"
  fi
  export HUB_PYTHON="$venv/bin/python"
}

# Debian's Chromium for the browser tests (Playwright drives it; its own browser download is
# not used).
ensure_chromium() {
  if [ -n "${CHROMIUM:-}" ] && [ -x "$CHROMIUM" ]; then
    return 0
  fi
  command -v chromium >/dev/null || apt_install chromium
  export CHROMIUM
  CHROMIUM=$(command -v chromium)
}

# Dovecot, the IMAP server the email channel's tests run one of their own of (DOVECOT names
# another binary). Only the package: its system service is not used (nor started here).
ensure_dovecot() {
  if [ -n "${DOVECOT:-}" ] && [ -x "$DOVECOT" ]; then
    return 0
  fi
  [ -x /usr/sbin/dovecot ] || apt_install dovecot-imapd
  export DOVECOT=/usr/sbin/dovecot
}

# The web apps' Node packages: web/ is one npm workspace (the dashboard, the widget and
# web/packages/*), installed as locked once, at its root, into web/node_modules.
ensure_web_packages() {
  ensure_node_packages web
}

# A web app's production build, rebuilt when its sources, the workspace's shared packages, the
# lock file or its build config are newer than the last build: ensure_web_build web/<app>
ensure_web_build() {
  local dir=$1
  ensure_web_packages
  local stamp="$dir/.next/BUILD_ID"
  if [ ! -f "$stamp" ] || [ -n "$(find "$dir/src" "$dir/public" "$dir/package.json" "$dir"/next.config.* "$dir"/scripts \
      web/package-lock.json web/packages -name node_modules -prune -o -newer "$stamp" -print -quit 2>/dev/null)" ]; then
    echo "building $dir (npm run build)" >&2
    (cd "$dir" && npm run build --silent >/dev/null)
  fi
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
# The S3 protocol server the tests store attachments in (s3s-fs: a local directory served over
# the S3 API, SigV4 signatures checked), built once from crates.io (a few minutes) into
# ~/.cache, outside the clone. Pinned to 0.14.1: later releases need Rust 1.96, newer than
# rust-toolchain.toml's. Exports S3S_FS, the binary tests/support/src/s3_server.rs starts.
S3S_FS_VERSION=0.14.1
ensure_s3s_fs() {
  if [ -n "${S3S_FS:-}" ] && [ -x "$S3S_FS" ]; then
    return 0
  fi
  local prefix="$HOME/.cache/supportdesk-tools/s3s-fs-$S3S_FS_VERSION"
  if [ ! -x "$prefix/bin/s3s-fs" ]; then
    echo "installing s3s-fs $S3S_FS_VERSION (crates.io)" >&2
    CARGO_TARGET_DIR="$HOME/.cache/cargo-install-target" \
      cargo install --locked --quiet --root "$prefix" "s3s-fs@$S3S_FS_VERSION" --features binary
  fi
  export S3S_FS="$prefix/bin/s3s-fs"
}
# Citus, the PostgreSQL extension the cluster tests and benchmark run on, from the source in
# ../shared/vendor (Debian packages no Citus; checked against the digest beside it), built once
# per PostgreSQL server version into ~/.cache and installed into that server's directories
# (which is where PostgreSQL loads extensions from). Citus 13.2 also defines
# have_createdb_privilege() for PostgreSQL 15, which 15.14 and later export themselves: the
# build keeps Citus's copy for earlier minors only. Exports PG_BINDIR, the server binaries
# tests/support/src/citus.rs starts a cluster with.
CITUS_VERSION=13.2.2
ensure_citus() {
  local major bindir pgconfig
  major=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)
  [ -n "$major" ] || { ensure_postgres; major=$(ls /usr/lib/postgresql | sort -V | tail -n 1); }
  bindir=/usr/lib/postgresql/$major/bin
  export PG_BINDIR=$bindir
  pgconfig=$bindir/pg_config
  local need=()
  # The server's headers (pg_config alone also comes with the server package).
  [ -f "$("$pgconfig" --includedir-server 2>/dev/null)/postgres.h" ] \
    || need+=("postgresql-server-dev-$major")
  command -v setpriv >/dev/null || need+=(util-linux)
  dpkg -s liblz4-dev >/dev/null 2>&1 || need+=(liblz4-dev)
  dpkg -s libzstd-dev >/dev/null 2>&1 || need+=(libzstd-dev)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
  [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
  local server
  server=$("$pgconfig" --version | awk '{print $2}')
  local cache="$HOME/.cache/supportdesk-tools/citus-$CITUS_VERSION-pg$server"
  local libdir
  libdir=$("$pgconfig" --pkglibdir)
  if [ ! -f "$cache/done" ]; then
    local tarball=../shared/vendor/citus-$CITUS_VERSION.tar.gz
    [ -f "$tarball" ] || { echo "$tarball is missing: the Citus source comes from ../shared" >&2; return 1; }
    (cd "$(dirname "$tarball")" && sha256sum --check --quiet "citus-$CITUS_VERSION.tar.gz.sha256") \
      || { echo "$tarball does not match its digest" >&2; return 1; }
    echo "building Citus $CITUS_VERSION for PostgreSQL $server (a few minutes, once)" >&2
    local src
    src=$(mktemp -d)
    # Chained with && (set -e does not apply inside a command whose status is tested), so
    # a failed step never marks the build done.
    (
      tar xzf "$tarball" -C "$src" &&
      cd "$src/citus-$CITUS_VERSION" &&
      perl -0pi -e 's/(\nstatic inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n)/\n#if PG_VERSION_NUM < 150014$1#endif\n/s' \
        src/include/pg_version_compat.h &&
      grep -q 'PG_VERSION_NUM < 150014' src/include/pg_version_compat.h &&
      PG_CONFIG=$pgconfig ./configure --without-libcurl >/dev/null &&
      make -j"$(nproc)" >/dev/null &&
      rm -rf "$cache" &&
      make install DESTDIR="$cache/root" >/dev/null &&
      touch "$cache/done"
    ) || { rm -rf "$src"; echo "building Citus failed" >&2; return 1; }
    rm -rf "$src"
  fi
  if ! cmp -s "$cache/root$libdir/citus.so" "$libdir/citus.so"; then
    echo "installing Citus $CITUS_VERSION into PostgreSQL $server" >&2
    as_root cp -a "$cache/root/." /
  fi
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
