//! Puts each workspace's logged events back in `seq` order on this replica.
//!
//! A replica hears its own commits at once and other replicas' through Redis, a little
//! later: without this, a reply committed on replica A just before one on replica B could
//! reach B's clients second. The log's numbers have no gaps, so a replica that holds seq 7
//! while it expects 6 knows 6 is committed and on its way: it holds 7 back until 6 arrives,
//! and after [`GAP_WAIT`] reads what is still missing from the log itself (which also heals
//! a message Redis lost). When the log cannot be read either, it moves on: clients see the
//! gap in `seq` and catch up through `GET /api/events`.
//!
//! A new track (the replica just started, or the workspace was quiet for [`IDLE`]) does not
//! know where it starts: the first event it hears need not be the lowest in flight (a request
//! that committed 6 may reach the hub after one that committed 7, and another replica's
//! events come later still). So it waits [`GAP_WAIT`] and starts from the lowest it heard.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::events::catalogue::Recorded;

/// How long a gap may stay open before the missing events are read from the log.
pub const GAP_WAIT: Duration = Duration::from_millis(25);
/// A gap wider than this is not read back: clients catch up themselves.
pub const MAX_FILL: i64 = 1000;
/// A workspace not heard from this long is forgotten (its next event starts afresh).
const IDLE: Duration = Duration::from_secs(600);

/// One workspace's place in its log, here.
#[derive(Debug, Default)]
pub struct Track {
    /// The seq to deliver next; `None` until the track settles, [`GAP_WAIT`] after its
    /// first event.
    next: Option<i64>,
    /// Events that arrived ahead of `next`.
    pending: BTreeMap<i64, Recorded>,
    /// A task is reading the gap from the log.
    pub filling: bool,
    touched: Option<Instant>,
}

impl Track {
    /// Takes events in any order; returns those that can be delivered now, in order (none
    /// before the track settles). Duplicates and events older than what was delivered are
    /// dropped.
    pub fn accept(&mut self, events: impl IntoIterator<Item = Recorded>) -> Vec<Recorded> {
        self.touched = Some(Instant::now());
        for event in events {
            if self.next.is_none_or(|next| event.seq >= next) {
                self.pending.insert(event.seq, event);
            }
        }
        self.drain()
    }

    /// Has heard events but not yet where it starts: [`Self::settle`] after [`GAP_WAIT`].
    pub fn unsettled(&self) -> bool {
        self.next.is_none() && !self.pending.is_empty()
    }

    /// Starts an unsettled track from the lowest seq it heard; what can be delivered now.
    pub fn settle(&mut self) -> Vec<Recorded> {
        if self.next.is_none() {
            self.next = self.pending.first_key_value().map(|(&seq, _)| seq);
        }
        self.drain()
    }

    fn drain(&mut self) -> Vec<Recorded> {
        let mut ready = Vec::new();
        while let Some(next) = self.next {
            let Some(event) = self.pending.remove(&next) else {
                break;
            };
            ready.push(event);
            self.next = Some(next + 1);
        }
        ready
    }

    /// The missing seqs: from `.0` up to, not including, `.1`.
    pub fn gap(&self) -> Option<(i64, i64)> {
        let next = self.next?;
        let (&first, _) = self.pending.first_key_value()?;
        (first > next).then_some((next, first))
    }

    /// Gives up on the current gap: delivers what waits behind it.
    pub fn skip(&mut self) -> Vec<Recorded> {
        if let Some((&first, _)) = self.pending.first_key_value() {
            self.next = Some(first);
        }
        self.drain()
    }

    fn idle(&self, now: Instant) -> bool {
        self.pending.is_empty()
            && !self.filling
            && self.touched.is_none_or(|at| now.duration_since(at) > IDLE)
    }
}

/// The tracks of the workspaces this replica hears.
#[derive(Default)]
pub struct Sequencer {
    tracks: Mutex<HashMap<Uuid, Arc<Mutex<Track>>>>,
}

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Sequencer {
    pub fn track(&self, workspace_id: Uuid) -> Arc<Mutex<Track>> {
        lock(&self.tracks).entry(workspace_id).or_default().clone()
    }

    /// Forgets workspaces not heard from for a while.
    pub fn forget_idle(&self) {
        let now = Instant::now();
        lock(&self.tracks).retain(|_, track| !lock(track).idle(now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::catalogue::{ActorKind, EventActor};

    fn event(seq: i64) -> Recorded {
        // Any logged event will do; built from its JSON, as the hub hears it.
        serde_json::from_value(serde_json::json!({
            "id": Uuid::new_v4(),
            "seq": seq,
            "occurredAt": "1970-01-01T00:00:00Z",
            "actor": EventActor { kind: ActorKind::System, id: None },
            "type": "contact.created",
            "data": {"id": Uuid::nil(), "name": null, "email": null, "claimedEmail": null},
        }))
        .unwrap()
    }

    fn seqs(events: &[Recorded]) -> Vec<i64> {
        events.iter().map(|e| e.seq).collect()
    }

    /// A track that has delivered `seq`.
    fn settled_at(seq: i64) -> Track {
        let mut track = Track::default();
        track.accept([event(seq)]);
        assert_eq!(seqs(&track.settle()), [seq]);
        track
    }

    #[test]
    fn a_new_track_starts_from_the_lowest_event_heard_before_it_settles() {
        let mut track = Track::default();
        assert!(track.accept([event(7)]).is_empty());
        assert!(track.unsettled());
        // Committed before 7, heard after it: not stale.
        assert!(track.accept([event(6)]).is_empty());
        assert_eq!(seqs(&track.settle()), [6, 7]);
        assert!(!track.unsettled());
        assert_eq!(seqs(&track.accept([event(8)])), [8]);
    }

    #[test]
    fn a_track_that_heard_nothing_stays_unsettled() {
        let mut track = Track::default();
        assert!(!track.unsettled());
        assert!(track.settle().is_empty());
        assert!(!track.unsettled());
        assert_eq!(track.gap(), None);
    }

    #[test]
    fn events_in_order_pass_at_once() {
        let mut track = settled_at(5);
        assert_eq!(seqs(&track.accept([event(6), event(7)])), [6, 7]);
        assert_eq!(track.gap(), None);
    }

    #[test]
    fn an_early_event_waits_for_the_one_before_it() {
        let mut track = settled_at(5);
        assert!(track.accept([event(7)]).is_empty());
        assert_eq!(track.gap(), Some((6, 7)));
        assert_eq!(seqs(&track.accept([event(6)])), [6, 7]);
        assert_eq!(track.gap(), None);
    }

    #[test]
    fn duplicates_and_stale_events_are_dropped() {
        let mut track = settled_at(5);
        track.accept([event(6)]);
        assert!(track.accept([event(5), event(6), event(3)]).is_empty());
        assert_eq!(seqs(&track.accept([event(7)])), [7]);
    }

    #[test]
    fn skipping_a_gap_delivers_what_waited_behind_it() {
        let mut track = settled_at(1);
        track.accept([event(4), event(5), event(8)]);
        assert_eq!(track.gap(), Some((2, 4)));
        assert_eq!(seqs(&track.skip()), [4, 5]);
        assert_eq!(track.gap(), Some((6, 8)));
        assert_eq!(seqs(&track.accept([event(6), event(7)])), [6, 7, 8]);
    }
}
