//! A report's range: whole days of the workspace's time zone (its business hours' zone), cut
//! into periods whose bounds are instants, so a day is 23 or 25 hours across a daylight-saving
//! change and the database never needs to know the zone (`width_bucket` over the bounds).

use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

/// The longest range a report covers.
pub const MAX_DAYS: i64 = 366;
/// The range when none is asked for: the last 30 days, today included.
pub const DEFAULT_DAYS: i64 = 30;

/// How a report's series is cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = ReportGroupBy)]
pub enum GroupBy {
    #[default]
    Day,
    /// ISO weeks, Monday first.
    Week,
    Month,
}

impl GroupBy {
    /// The first day of the period holding `date`: its key.
    fn key_of(self, date: Date) -> Date {
        match self {
            Self::Day => date,
            Self::Week => date
                .checked_sub(i64::from(date.weekday().to_monday_zero_offset()).days())
                .unwrap_or(date),
            Self::Month => date.first_of_month(),
        }
    }

    fn next(self, key: Date) -> Option<Date> {
        match self {
            Self::Day => key.tomorrow().ok(),
            Self::Week => key.checked_add(7.days()).ok(),
            Self::Month => key.first_of_month().checked_add(1.month()).ok(),
        }
    }
}

/// The range's periods, each keyed by its first day, and the instants between them.
#[derive(Debug, Clone)]
pub struct Periods {
    pub from: Date,
    pub to: Date,
    pub group_by: GroupBy,
    /// Each period's key, in order (the first may precede `from`: its week's Monday).
    pub keys: Vec<Date>,
    /// `from`'s first instant, each later period's first instant, then the first instant
    /// after `to`: `keys.len() + 1` bounds.
    pub bounds: Vec<OffsetDateTime>,
}

/// The first instant of `date` in `zone`.
fn start_of(date: Date, zone: &TimeZone) -> Option<OffsetDateTime> {
    let instant: Timestamp = date
        .to_datetime(Time::midnight())
        .to_zoned(zone.clone())
        .ok()?
        .timestamp();
    OffsetDateTime::from_unix_timestamp_nanos(instant.as_nanosecond()).ok()
}

/// Today in `zone`.
pub fn today(zone: &TimeZone) -> Date {
    Timestamp::now().to_zoned(zone.clone()).date()
}

impl Periods {
    /// The periods of `from..=to`; an error message when the range is not one.
    pub fn new(from: Date, to: Date, group_by: GroupBy, zone: &TimeZone) -> Result<Self, String> {
        if from > to {
            return Err("must not be after `to`".into());
        }
        let days = from.until(to).map_or(i32::MAX, |span| span.get_days());
        if i64::from(days) >= MAX_DAYS {
            return Err(format!("the range is at most {MAX_DAYS} days"));
        }
        let outside = || "is outside the dates reports can count".to_owned();
        let mut keys = vec![group_by.key_of(from)];
        let mut bounds = vec![start_of(from, zone).ok_or_else(outside)?];
        while let Some(next) = keys.last().and_then(|key| group_by.next(*key)) {
            if next > to {
                break;
            }
            keys.push(next);
            bounds.push(start_of(next, zone).ok_or_else(outside)?);
        }
        let after = to.tomorrow().ok().and_then(|day| start_of(day, zone));
        bounds.push(after.ok_or_else(outside)?);
        Ok(Self {
            from,
            to,
            group_by,
            keys,
            bounds,
        })
    }

    pub fn start(&self) -> OffsetDateTime {
        self.bounds[0]
    }

    pub fn end(&self) -> OffsetDateTime {
        self.bounds[self.bounds.len() - 1]
    }

    /// Whether every bound is a whole UTC hour, so the hourly rollups cut exactly into these
    /// periods (every zone but those a half or three quarters of an hour off UTC).
    pub fn on_whole_hours(&self) -> bool {
        self.bounds
            .iter()
            .all(|b| b.minute() == 0 && b.second() == 0 && b.nanosecond() == 0)
    }

    /// The period of `width_bucket(at, bounds)`'s answer (1 for the first period); `None`
    /// outside the range.
    pub fn index(&self, bucket: i32) -> Option<usize> {
        let index = usize::try_from(bucket).ok()?.checked_sub(1)?;
        (index < self.keys.len()).then_some(index)
    }

    /// The period holding an instant, for figures computed here rather than in SQL.
    pub fn index_of(&self, at: OffsetDateTime) -> Option<usize> {
        if at < self.start() || at >= self.end() {
            return None;
        }
        Some(self.bounds.partition_point(|bound| *bound <= at) - 1)
    }
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;

    use super::*;

    fn berlin() -> TimeZone {
        TimeZone::get("Europe/Berlin").unwrap()
    }

    #[test]
    fn days_follow_the_zone_across_a_daylight_saving_change() {
        let periods = Periods::new(
            date(2026, 3, 28),
            date(2026, 3, 30),
            GroupBy::Day,
            &berlin(),
        )
        .unwrap();
        assert_eq!(periods.keys.len(), 3);
        let hours: Vec<i64> = periods
            .bounds
            .windows(2)
            .map(|w| (w[1] - w[0]).whole_hours())
            .collect();
        // 29 March 2026 springs forward: 23 hours.
        assert_eq!(hours, [24, 23, 24]);
        // Midnight in Berlin, as instants: winter time on the 28th, summer time on the 31st.
        let rfc3339 = &time::format_description::well_known::Rfc3339;
        assert_eq!(
            periods.start().format(rfc3339).unwrap(),
            "2026-03-27T23:00:00Z"
        );
        assert_eq!(
            periods.end().format(rfc3339).unwrap(),
            "2026-03-30T22:00:00Z"
        );
    }

    #[test]
    fn weeks_are_keyed_by_their_monday_and_months_by_their_first() {
        // 2026-11-04 is a Wednesday.
        let weeks = Periods::new(
            date(2026, 11, 4),
            date(2026, 11, 20),
            GroupBy::Week,
            &TimeZone::UTC,
        )
        .unwrap();
        assert_eq!(
            weeks.keys,
            [date(2026, 11, 2), date(2026, 11, 9), date(2026, 11, 16)]
        );
        // The first period starts at `from`, not at its Monday.
        assert_eq!(weeks.start().day(), 4);
        let months = Periods::new(
            date(2026, 1, 15),
            date(2026, 12, 31),
            GroupBy::Month,
            &TimeZone::UTC,
        )
        .unwrap();
        assert_eq!(months.keys.len(), 12);
        assert_eq!(months.keys[11], date(2026, 12, 1));
    }

    #[test]
    fn an_instant_falls_in_its_period() {
        let periods = Periods::new(
            date(2026, 3, 28),
            date(2026, 3, 30),
            GroupBy::Day,
            &berlin(),
        )
        .unwrap();
        let at = |s: &str| {
            OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).unwrap()
        };
        // 23:30 UTC on the 28th is 00:30 on the 29th in Berlin.
        assert_eq!(periods.index_of(at("2026-03-28T23:30:00Z")), Some(1));
        assert_eq!(periods.index_of(at("2026-03-27T22:59:59Z")), None);
        assert_eq!(periods.index_of(at("2026-03-30T21:59:59Z")), Some(2));
        assert_eq!(periods.index_of(at("2026-03-30T22:00:00Z")), None);
        assert_eq!(periods.index(1), Some(0));
        assert_eq!(periods.index(0), None);
        assert_eq!(periods.index(4), None);
    }

    #[test]
    fn hours_serve_whole_hour_zones_only() {
        let days = |zone: &str| {
            let zone = TimeZone::get(zone).unwrap();
            Periods::new(date(2026, 3, 28), date(2026, 3, 30), GroupBy::Day, &zone).unwrap()
        };
        assert!(days("Europe/Berlin").on_whole_hours());
        assert!(days("America/New_York").on_whole_hours());
        assert!(!days("Asia/Kolkata").on_whole_hours());
        assert!(!days("Asia/Kathmandu").on_whole_hours());
    }

    #[test]
    fn a_range_is_ordered_and_at_most_a_leap_year() {
        let utc = TimeZone::UTC;
        assert!(Periods::new(date(2026, 2, 2), date(2026, 2, 1), GroupBy::Day, &utc).is_err());
        assert!(Periods::new(date(2024, 1, 1), date(2024, 12, 31), GroupBy::Day, &utc).is_ok());
        assert!(Periods::new(date(2024, 1, 1), date(2025, 1, 1), GroupBy::Day, &utc).is_err());
    }
}
