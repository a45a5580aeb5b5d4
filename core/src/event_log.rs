//! How a workspace's events are read by seq, for the API and the worker alike.
//!
//! An event numbered in its own transaction keeps its `seq` in its row; one numbered after its
//! commit keeps `seq` NULL and is numbered by its batch: the `n`-th arrival of an
//! `event_batches` row has seq `first_seq + n - 1` (`tenant_migrations/V28__event_batches.sql`
//! says why). Every reader by seq goes through [`numbered_events!`] (or
//! [`batched_arrival_at!`] for one seq named by another table's row), so the mapping is
//! written once.

/// The most arrivals one batch numbers (the migration checks it, and
/// [`numbered_events!`] relies on it to find the batches a range of seqs starts in).
pub const BATCH_MAX: i64 = 1000;

/// The workspace's events with seq above `$1` and at most `$2`, as a subquery (alias it):
/// columns `seq, id, type, occurred_at, actor_kind, actor_id, data, conversation_id`, in no
/// particular order. Seqs have no gaps, so a reader that wants `n` events after `a` asks for
/// `(a, a + n]`. Batched events are found from their batches' arrivals, one index probe an
/// event (`OFFSET 0` keeps the probe a subquery, so the plan is the same whatever the
/// statistics say). A join of one range scan of the arrivals to the batches' seqs read less
/// (`benches/event_numbering`), but its plan followed the planner's guess of how many
/// arrivals the batches hold (a few): with one batch of 1 000 it scanned the batch again for
/// every event, 134 ms for a page of 1 000 against 3.6 ms probed (`benches/events.rs`).
#[macro_export]
macro_rules! numbered_events {
    () => {
        "(SELECT seq, id, type, occurred_at, actor_kind, actor_id, data, conversation_id
            FROM {schema}.events WHERE seq > $1 AND seq <= $2
          UNION ALL
          (WITH m AS MATERIALIZED (
               SELECT b.first_seq + o.i - 1 AS seq, o.arrival
                 FROM {schema}.event_batches b,
                      unnest(b.arrivals) WITH ORDINALITY AS o(arrival, i)
                WHERE b.first_seq > $1 - 1000 AND b.first_seq <= $2
                  AND b.first_seq + o.i - 1 > $1 AND b.first_seq + o.i - 1 <= $2)
           SELECT m.seq, e.id, e.type, e.occurred_at, e.actor_kind, e.actor_id, e.data,
                  e.conversation_id
             FROM m CROSS JOIN LATERAL (
                  SELECT e.id, e.type, e.occurred_at, e.actor_kind, e.actor_id, e.data,
                         e.conversation_id
                    FROM {schema}.events e
                   WHERE e.arrival = m.arrival AND e.seq IS NULL OFFSET 0) e))"
    };
}

/// The arrival a batch numbered with seq `$seq` (an SQL expression, e.g. a column of the
/// outer query), NULL when no batch did: that event was numbered in its row (`seq = $seq`).
#[macro_export]
macro_rules! batched_arrival_at {
    ($seq:literal) => {
        concat!(
            "(SELECT b.arrivals[",
            $seq,
            " - b.first_seq + 1] FROM {schema}.event_batches b
               WHERE b.first_seq <= ",
            $seq,
            " ORDER BY b.first_seq DESC LIMIT 1)"
        )
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_batch_bound_in_the_reader_is_the_batch_size() {
        assert!(numbered_events!().contains(&format!("$1 - {}", super::BATCH_MAX)));
    }
}
