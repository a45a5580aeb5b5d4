#!/usr/bin/env bash
# How a waiting event is numbered with fewer writes: a pgbench harness, not part of the
# product. It compares, in PostgreSQL alone, a reply's statements in one workspace (16 writers,
# a conversation each) four ways: without its event (`without`), with waiting events numbered
# as the product numbered them until V28 (`rows`: a pass gives each waiting event's row its
# `seq`), as it numbers them now (`batched`: the pass records its first seq and the arrivals
# it numbered in `event_batches`, and never touches the events' rows; a watermark under the
# snapshot's horizon tells a straggler from an arrival that will never commit,
# `tenant_migrations/V28__event_batches.sql`), and with no pass at all (`nopass`, the
# ceiling). `read` times a page of 1 000 events read by seq from rows that hold it against the
# same page mapped through batches.
#
#   bash benches/event_numbering/run.sh write [ROUNDS] [SECONDS]
#   bash benches/event_numbering/run.sh read
#
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and pgbench; makes and drops its
# own databases (sd_numbering_*). Figures and what they mean: docs/performance.md, "Numbering
# a batch with one row".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
psql=(psql -h 127.0.0.1 -U postgres -q -v ON_ERROR_STOP=1)
bench=(pgbench -h 127.0.0.1 -U postgres -n -M prepared)

migrations() { # the control plane's, then one workspace's in schema w1
    for f in $(ls "$repo/migrations" | sort -t_ -k1.2 -n); do cat "$repo/migrations/$f"; echo; done
    echo "CREATE SCHEMA w1; SET search_path = w1;"
    for f in $(ls "$repo/tenant_migrations" | sort -t_ -k1.2 -n); do cat "$repo/tenant_migrations/$f"; echo; done
}

template() {
    "${psql[@]}" -c "DROP DATABASE IF EXISTS sd_numbering_template" -c "CREATE DATABASE sd_numbering_template"
    migrations | "${psql[@]}" -d sd_numbering_template -f -
    "${psql[@]}" -d sd_numbering_template <<'SQL'
SET search_path = w1;
INSERT INTO agent_profiles (id, user_id, display_name, email, full_name, role, status, joined_at)
VALUES ('33333333-3333-3333-3333-333333333333', '11111111-1111-1111-1111-111111111111',
        'Ada Agent', 'ada@example.com', 'Ada Agent', 'admin', 'active', now());
INSERT INTO contacts (id, email, name) VALUES ('22222222-2222-2222-2222-222222222222', 'c@example.com', 'Casey');
INSERT INTO conversations (id, number, contact_id, status, channel) OVERRIDING SYSTEM VALUE
SELECT md5(n::text)::uuid, n, '22222222-2222-2222-2222-222222222222', 'open', 'chat'
  FROM generate_series(1, 16) n;
SQL
}

# one VARIANT SECONDS: writers' transactions a second, and the log's state after.
one() {
    local v=$1 t=$2 writer pass=
    case $v in
        without) writer=writer_without.sql ;;
        rows) writer=writer_rows.sql pass=pass_rows.sql ;;
        batched) writer=writer_batched.sql pass=pass_batched.sql ;;
        nopass) writer=writer_batched.sql ;;
    esac
    "${psql[@]}" -c "DROP DATABASE IF EXISTS sd_numbering_run" \
        -c "CREATE DATABASE sd_numbering_run TEMPLATE sd_numbering_template" -c "CHECKPOINT"
    local pid=
    if [ -n "$pass" ]; then
        "${bench[@]}" -c 1 -j 1 -T "$t" -f "$here/$pass" sd_numbering_run >/dev/null 2>&1 &
        pid=$!
    fi
    local tps
    tps=$("${bench[@]}" -c 16 -j 2 -T "$t" -f "$here/$writer" sd_numbering_run 2>&1 |
        awk '/^tps/ {print $3; exit}')
    [ -z "$pid" ] || wait "$pid"
    echo "$v $tps $("${psql[@]}" -d sd_numbering_run -Atc "
        SELECT count(*) || ' events, ' || count(*) FILTER (WHERE arrival IS NOT NULL)
               || ' waited, ' || count(*) FILTER (WHERE seq IS NOT NULL) || ' numbered in their row, '
               || (SELECT coalesce(sum(cardinality(arrivals)), 0) FROM w1.event_batches)
               || ' numbered by batch rows'
          FROM w1.events")"
}

write() {
    local rounds=${1:-3} seconds=${2:-15}
    template
    local log
    log=$(mktemp)
    for _ in $(seq "$rounds"); do
        for v in without rows batched nopass; do one "$v" "$seconds" | tee -a "$log"; done
    done
    awk '{s[$1] += $2} END {for (k in s) printf "%-8s %9.0f transactions  %5.1f %% of without\n", k, s[k], 100 * s[k] / s["without"]}' "$log"
    rm -f "$log"
    "${psql[@]}" -c "DROP DATABASE IF EXISTS sd_numbering_run" -c "DROP DATABASE sd_numbering_template"
}

read_pages() {
    "${psql[@]}" -c "DROP DATABASE IF EXISTS sd_numbering_read" -c "CREATE DATABASE sd_numbering_read"
    migrations | "${psql[@]}" -d sd_numbering_read -f -
    local data
    data=$(grep -o "E'{[^']*'::json" "$here/writer_rows.sql" | head -1)
    "${psql[@]}" -d sd_numbering_read <<SQL
-- 100 000 message.created events: numbered in their rows, and numbered by batches of 18.
CREATE SCHEMA in_rows;
CREATE TABLE in_rows.events (LIKE w1.events INCLUDING ALL);
INSERT INTO in_rows.events (seq, id, type, actor_kind, actor_id, data)
SELECT n, gen_random_uuid(), 'message.created', 'agent', gen_random_uuid(), $data
  FROM generate_series(1, 100000) n;
CREATE SCHEMA batched;
CREATE TABLE batched.events (LIKE w1.events INCLUDING ALL);
CREATE TABLE batched.event_batches (first_seq bigint PRIMARY KEY, arrivals bigint[] NOT NULL);
INSERT INTO batched.events (arrival, id, type, actor_kind, actor_id, data)
SELECT n, gen_random_uuid(), 'message.created', 'agent', gen_random_uuid(), $data
  FROM generate_series(1, 100000) n;
INSERT INTO batched.event_batches
SELECT g * 18 + 1, array_agg(n ORDER BY n) FROM generate_series(1, 100000) n,
       LATERAL (SELECT (n - 1) / 18 AS g) x GROUP BY g;
VACUUM ANALYZE;
SQL
    for round in 1 2; do
        for clients in 1 4; do
            for v in rows batched; do
                echo "round $round, $clients client(s), $v: $("${bench[@]}" -c "$clients" -j "$clients" -T 8 \
                    -f "$here/read_$v.sql" sd_numbering_read 2>&1 | awk '/latency average/ {print $4 " ms"}')"
            done
        done
    done
    "${psql[@]}" -c "DROP DATABASE sd_numbering_read"
}

case "${1:-}" in
    write) shift; write "$@" ;;
    read) read_pages ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
esac
