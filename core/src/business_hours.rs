//! A workspace's business hours, parsed once: a time zone, opening hours per weekday and
//! holidays, and the clock questions asked of them (open now? when does that change? how
//! much business time lies between two instants?).
//!
//! Hours are civil times of the workspace's zone, so an opening at 09:00 stays at 09:00
//! across a daylight-saving change, and a day's length follows the zone (a spring-forward day
//! open around the clock is 23 hours long). A civil time the change skips is taken as the
//! first instant after the gap, a repeated one as its first occurrence (`compatible`).

use std::collections::BTreeSet;

use jiff::Timestamp;
use jiff::civil::{Date, DateTime, Time};
use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

/// Minutes in a day: a closing time of `24:00`.
const DAY_MINUTES: u16 = 24 * 60;
/// Openings one weekday may have (a split day, a lunch break).
pub const OPENINGS_PER_DAY: usize = 4;
/// Holidays kept: a few years ahead.
pub const HOLIDAYS_MAX: usize = 200;
/// How far ahead [`Schedule::next_change`] looks before saying "never".
const LOOKAHEAD_DAYS: i32 = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl Weekday {
    const ALL: [Self; 7] = [
        Self::Mon,
        Self::Tue,
        Self::Wed,
        Self::Thu,
        Self::Fri,
        Self::Sat,
        Self::Sun,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// The day's name, as a message says it.
    fn name(self) -> &'static str {
        [
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
            "Saturday",
            "Sunday",
        ][self.index()]
    }

    fn of(date: Date) -> Self {
        Self::ALL[usize::try_from(date.weekday().to_monday_zero_offset()).unwrap_or(0)]
    }
}

/// Business hours as the API shows and stores them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BusinessHours {
    /// An IANA time zone: the hours and holidays are its civil times.
    #[cfg_attr(feature = "openapi", schema(example = "Europe/Berlin"))]
    pub time_zone: String,
    /// The openings of each weekday, by day then time; a day without one is closed.
    pub weekly: Vec<Opening>,
    /// Days closed all day, `YYYY-MM-DD`, in order.
    #[cfg_attr(feature = "openapi", schema(example = json!(["2026-12-25"])))]
    pub holidays: Vec<String>,
}

/// One opening of a weekday, `HH:MM` to `HH:MM` (`24:00` is midnight at its end).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Opening {
    pub day: Weekday,
    #[cfg_attr(feature = "openapi", schema(example = "09:00"))]
    pub open: String,
    #[cfg_attr(feature = "openapi", schema(example = "17:00"))]
    pub close: String,
}

/// What is wrong with a document, by field (`timeZone`, `weekly`, `holidays`).
pub type Problems = Vec<(&'static str, String)>;

/// Business hours, checked: the clock's questions are answered from this.
#[derive(Debug, Clone)]
pub struct Schedule {
    zone_name: String,
    zone: TimeZone,
    /// Per weekday (Monday first): openings in minutes of the day, ordered, apart.
    days: [Vec<(u16, u16)>; 7],
    holidays: BTreeSet<Date>,
}

/// `HH:MM` as minutes of the day; `24:00` only where `end` allows it.
fn minutes(text: &str, end: bool) -> Option<u16> {
    let (hours, mins) = text.split_once(':')?;
    if hours.len() != 2 || mins.len() != 2 {
        return None;
    }
    let (hours, mins): (u16, u16) = (hours.parse().ok()?, mins.parse().ok()?);
    let total = hours.checked_mul(60)?.checked_add(mins)?;
    let fits = mins < 60 && (total < DAY_MINUTES || (end && total == DAY_MINUTES));
    fits.then_some(total)
}

fn clock(minutes: u16) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

impl Schedule {
    /// Open every day around the clock, in UTC: what a workspace has until an Owner sets
    /// hours.
    pub fn always_open() -> Self {
        Self {
            zone_name: "UTC".to_owned(),
            zone: TimeZone::UTC,
            days: std::array::from_fn(|_| vec![(0, DAY_MINUTES)]),
            holidays: BTreeSet::new(),
        }
    }

    /// Checks a document; every problem found, by field, when it is not usable.
    pub fn parse(hours: &BusinessHours) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let zone = TimeZone::get(&hours.time_zone)
            .ok()
            .filter(|_| !hours.time_zone.is_empty());
        if zone.is_none() {
            problems.push((
                "timeZone",
                format!(
                    "{:?} is not an IANA time zone (such as Europe/Berlin)",
                    hours.time_zone
                ),
            ));
        }
        let mut days: [Vec<(u16, u16)>; 7] = Default::default();
        for opening in &hours.weekly {
            let (open, close) = (minutes(&opening.open, false), minutes(&opening.close, true));
            match (open, close) {
                (Some(open), Some(close)) if open < close => {
                    days[opening.day.index()].push((open, close));
                }
                (Some(_), Some(_)) => problems.push((
                    "weekly",
                    format!(
                        "{}: an opening closes after it opens ({} to {})",
                        opening.day.name(),
                        opening.open,
                        opening.close
                    ),
                )),
                _ => problems.push((
                    "weekly",
                    format!(
                        "{}: times are HH:MM from 00:00 to 23:59, and a closing time may be \
                         24:00 ({} to {})",
                        opening.day.name(),
                        opening.open,
                        opening.close
                    ),
                )),
            }
        }
        for (day, openings) in Weekday::ALL.iter().zip(days.iter_mut()) {
            openings.sort_unstable();
            if openings.len() > OPENINGS_PER_DAY {
                problems.push((
                    "weekly",
                    format!("{}: at most {OPENINGS_PER_DAY} openings a day", day.name()),
                ));
            }
            if openings.windows(2).any(|pair| pair[1].0 < pair[0].1) {
                problems.push(("weekly", format!("{}: openings overlap", day.name())));
            }
        }
        let mut holidays = BTreeSet::new();
        for text in &hours.holidays {
            match text.parse::<Date>() {
                Ok(date) if text.len() == 10 => {
                    if !holidays.insert(date) {
                        problems.push(("holidays", format!("{text} is listed twice")));
                    }
                }
                _ => problems.push(("holidays", format!("{text:?} is not a date (YYYY-MM-DD)"))),
            }
        }
        if hours.holidays.len() > HOLIDAYS_MAX {
            problems.push(("holidays", format!("at most {HOLIDAYS_MAX} holidays")));
        }
        match zone {
            Some(zone) if problems.is_empty() => Ok(Self {
                zone_name: hours.time_zone.clone(),
                zone,
                days,
                holidays,
            }),
            _ => Err(problems),
        }
    }

    /// The document, in its one order (by day, then time; holidays by date).
    pub fn document(&self) -> BusinessHours {
        let weekly = Weekday::ALL
            .iter()
            .zip(&self.days)
            .flat_map(|(day, openings)| {
                openings.iter().map(|&(open, close)| Opening {
                    day: *day,
                    open: clock(open),
                    close: clock(close),
                })
            })
            .collect();
        BusinessHours {
            time_zone: self.zone_name.clone(),
            weekly,
            holidays: self.holidays.iter().map(ToString::to_string).collect(),
        }
    }

    /// The instant a civil time of this zone names.
    fn instant(&self, date: Date, minutes: u16) -> Option<Timestamp> {
        let (date, minutes) = if minutes >= DAY_MINUTES {
            (date.tomorrow().ok()?, minutes - DAY_MINUTES)
        } else {
            (date, minutes)
        };
        let hour = i8::try_from(minutes / 60).ok()?;
        let minute = i8::try_from(minutes % 60).ok()?;
        let time = Time::new(hour, minute, 0, 0).ok()?;
        self.zone
            .to_ambiguous_timestamp(DateTime::from_parts(date, time))
            .compatible()
            .ok()
    }

    /// The openings of one civil day, as instants (none on a holiday).
    fn openings_on(&self, date: Date) -> impl Iterator<Item = (Timestamp, Timestamp)> + '_ {
        let openings: &[(u16, u16)] = if self.holidays.contains(&date) {
            &[]
        } else {
            &self.days[Weekday::of(date).index()]
        };
        openings.iter().filter_map(move |&(open, close)| {
            Some((self.instant(date, open)?, self.instant(date, close)?))
        })
    }

    /// The zone the hours are civil times of (reports count their days in it).
    pub fn zone(&self) -> &TimeZone {
        &self.zone
    }

    /// Its IANA name.
    pub fn zone_name(&self) -> &str {
        &self.zone_name
    }

    fn local_date(&self, at: Timestamp) -> Date {
        self.zone.to_datetime(at).date()
    }

    /// Whether `at` falls within an opening.
    pub fn is_open(&self, at: Timestamp) -> bool {
        let today = self.local_date(at);
        // An opening ending at 24:00 ends on the next day's date: yesterday's are checked too.
        [today.yesterday().ok(), Some(today)]
            .into_iter()
            .flatten()
            .flat_map(|date| self.openings_on(date))
            .any(|(open, close)| open <= at && at < close)
    }

    /// The first instant after `at` when [`Self::is_open`] changes; `None` when it does not
    /// within about a year (always open, or never).
    pub fn next_change(&self, at: Timestamp) -> Option<Timestamp> {
        let now_open = self.is_open(at);
        let mut date = self.local_date(at).yesterday().ok()?;
        for _ in 0..LOOKAHEAD_DAYS {
            for (open, close) in self.openings_on(date) {
                for boundary in [open, close] {
                    if boundary > at && self.is_open(boundary) != now_open {
                        return Some(boundary);
                    }
                }
            }
            date = date.tomorrow().ok()?;
        }
        None
    }

    /// Seconds of business time from `from` to `to` (none when `to` is not after `from`).
    pub fn business_seconds(&self, from: Timestamp, to: Timestamp) -> i64 {
        if to <= from {
            return 0;
        }
        let (mut date, last) = (self.local_date(from).yesterday(), self.local_date(to));
        let mut total = 0;
        while let Ok(day) = date {
            if day > last {
                break;
            }
            for (open, close) in self.openings_on(day) {
                let (start, end) = (open.max(from), close.min(to));
                if start < end {
                    total += end.as_second() - start.as_second();
                }
            }
            date = day.tomorrow();
        }
        total
    }
}

/// A workspace's business hours as stored (`settings.business_hours`), parsed; open around
/// the clock until an Owner sets them. `for_update` locks the row for a change of them.
pub async fn load(
    conn: &mut sqlx::PgConnection,
    schema: &crate::tenancy::TenantSchema,
    for_update: bool,
) -> Result<Schedule, sqlx::Error> {
    let statement = if for_update {
        "SELECT business_hours FROM {schema}.settings FOR UPDATE"
    } else {
        "SELECT business_hours FROM {schema}.settings"
    };
    let stored: Option<sqlx::types::Json<BusinessHours>> =
        sqlx::query_scalar(schema.sql(statement))
            .fetch_one(conn)
            .await?;
    match stored {
        None => Ok(Schedule::always_open()),
        // Checked when written; a zone the time-zone database has since dropped is a fault
        // to see, not a reason to guess.
        Some(sqlx::types::Json(hours)) => Schedule::parse(&hours).map_err(|problems| {
            sqlx::Error::Decode(
                format!("stored business hours no longer parse: {problems:?}").into(),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(zone: &str, civil: &str) -> Timestamp {
        let zone = TimeZone::get(zone).unwrap();
        zone.to_ambiguous_timestamp(civil.parse().unwrap())
            .compatible()
            .unwrap()
    }

    fn hours(zone: &str, weekly: &[(Weekday, &str, &str)], holidays: &[&str]) -> BusinessHours {
        BusinessHours {
            time_zone: zone.to_owned(),
            weekly: weekly
                .iter()
                .map(|(day, open, close)| Opening {
                    day: *day,
                    open: (*open).to_owned(),
                    close: (*close).to_owned(),
                })
                .collect(),
            holidays: holidays.iter().map(|h| (*h).to_owned()).collect(),
        }
    }

    fn office(holidays: &[&str]) -> Schedule {
        use Weekday::*;
        let weekly: Vec<_> = [Mon, Tue, Wed, Thu, Fri]
            .into_iter()
            .map(|day| (day, "09:00", "17:00"))
            .collect();
        Schedule::parse(&hours("Europe/Berlin", &weekly, holidays)).unwrap()
    }

    #[test]
    fn a_weekend_counts_nothing() {
        let berlin = office(&[]);
        // Friday 2026-11-27 16:00 to Monday 10:00: an hour on Friday, an hour on Monday.
        let from = at("Europe/Berlin", "2026-11-27T16:00");
        let to = at("Europe/Berlin", "2026-11-30T10:00");
        assert_eq!(berlin.business_seconds(from, to), 2 * 3600);
        assert_eq!(berlin.business_seconds(to, from), 0);
        let saturday = at("Europe/Berlin", "2026-11-28T12:00");
        assert!(!berlin.is_open(saturday));
        assert_eq!(
            berlin.next_change(saturday),
            Some(at("Europe/Berlin", "2026-11-30T09:00"))
        );
        let monday = at("Europe/Berlin", "2026-11-30T09:30");
        assert!(berlin.is_open(monday));
        assert_eq!(
            berlin.next_change(monday),
            Some(at("Europe/Berlin", "2026-11-30T17:00"))
        );
    }

    #[test]
    fn a_holiday_is_closed_all_day() {
        let berlin = office(&["2026-11-30"]);
        let from = at("Europe/Berlin", "2026-11-27T16:00");
        let to = at("Europe/Berlin", "2026-12-01T10:00");
        assert_eq!(berlin.business_seconds(from, to), 2 * 3600);
        assert!(!berlin.is_open(at("Europe/Berlin", "2026-11-30T11:00")));
        assert_eq!(
            berlin.next_change(at("Europe/Berlin", "2026-11-28T12:00")),
            Some(at("Europe/Berlin", "2026-12-01T09:00"))
        );
    }

    #[test]
    fn daylight_saving_changes_the_length_of_a_day_not_its_hours() {
        use Weekday::*;
        let around_the_clock: Vec<_> = Weekday::ALL
            .into_iter()
            .map(|day| (day, "00:00", "24:00"))
            .collect();
        let berlin = Schedule::parse(&hours("Europe/Berlin", &around_the_clock, &[])).unwrap();
        // Sunday 2026-03-29 has 23 hours in Berlin, Sunday 2026-10-25 has 25.
        let spring = berlin.business_seconds(
            at("Europe/Berlin", "2026-03-29T00:00"),
            at("Europe/Berlin", "2026-03-30T00:00"),
        );
        assert_eq!(spring, 23 * 3600);
        let autumn = berlin.business_seconds(
            at("Europe/Berlin", "2026-10-25T00:00"),
            at("Europe/Berlin", "2026-10-26T00:00"),
        );
        assert_eq!(autumn, 25 * 3600);
        assert_eq!(
            berlin.next_change(at("Europe/Berlin", "2026-03-29T12:00")),
            None
        );

        // Nine to five is eight hours on either side of the change, in local time.
        let office = office(&[]);
        let friday = |date: &str| {
            office.business_seconds(
                at("Europe/Berlin", &format!("{date}T00:00")),
                at("Europe/Berlin", &format!("{date}T23:59")),
            )
        };
        assert_eq!(friday("2026-03-27"), 8 * 3600);
        assert_eq!(friday("2026-03-30"), 8 * 3600);
        // Opens at 09:00 local: 08:00 UTC in winter, 07:00 UTC in summer.
        assert_eq!(
            office.next_change(at("Europe/Berlin", "2026-03-28T12:00")),
            Some("2026-03-30T07:00:00Z".parse().unwrap())
        );
        // An opening inside the skipped hour starts when the clock resumes.
        let night = Schedule::parse(&hours("Europe/Berlin", &[(Sun, "02:00", "04:00")], &[]));
        let night = night.unwrap();
        assert_eq!(
            night.business_seconds(
                at("Europe/Berlin", "2026-03-29T00:00"),
                at("Europe/Berlin", "2026-03-29T12:00")
            ),
            3600
        );
    }

    #[test]
    fn an_opening_until_midnight_ends_at_the_next_days_start() {
        use Weekday::*;
        let late = Schedule::parse(&hours("UTC", &[(Fri, "20:00", "24:00")], &[])).unwrap();
        assert!(late.is_open("2026-11-27T23:59:59Z".parse().unwrap()));
        assert!(!late.is_open("2026-11-28T00:00:00Z".parse().unwrap()));
        assert_eq!(
            late.next_change("2026-11-27T21:00:00Z".parse().unwrap()),
            Some("2026-11-28T00:00:00Z".parse().unwrap())
        );
        // No hours at all: never open, and nothing changes.
        let closed = Schedule::parse(&hours("UTC", &[], &[])).unwrap();
        assert!(!closed.is_open("2026-11-27T12:00:00Z".parse().unwrap()));
        assert_eq!(
            closed.next_change("2026-11-27T12:00:00Z".parse().unwrap()),
            None
        );
        let open = Schedule::always_open();
        assert!(open.is_open("2026-11-27T12:00:00Z".parse().unwrap()));
        assert_eq!(
            open.next_change("2026-11-27T12:00:00Z".parse().unwrap()),
            None
        );
    }

    #[test]
    fn the_document_reads_back_in_one_order() {
        use Weekday::*;
        let given = hours(
            "America/New_York",
            &[
                (Wed, "13:00", "17:00"),
                (Mon, "09:00", "12:00"),
                (Wed, "08:00", "12:00"),
            ],
            &["2026-12-25", "2026-07-03"],
        );
        let document = Schedule::parse(&given).unwrap().document();
        assert_eq!(
            document,
            hours(
                "America/New_York",
                &[
                    (Mon, "09:00", "12:00"),
                    (Wed, "08:00", "12:00"),
                    (Wed, "13:00", "17:00")
                ],
                &["2026-07-03", "2026-12-25"],
            )
        );
        assert_eq!(
            Schedule::always_open().document().weekly.len(),
            7,
            "every day, 00:00 to 24:00"
        );
    }

    #[test]
    fn bad_documents_name_every_problem() {
        use Weekday::*;
        let bad = hours(
            "Mars/Olympus",
            &[
                (Mon, "17:00", "09:00"),
                (Tue, "9:00", "17:00"),
                (Wed, "24:00", "24:00"),
                (Thu, "09:00", "13:00"),
                (Thu, "12:00", "18:00"),
                (Fri, "08:60", "10:00"),
            ],
            &["2026-12-25", "2026-12-25", "Christmas", "2026-2-3"],
        );
        let problems = Schedule::parse(&bad).unwrap_err();
        let count = |field| problems.iter().filter(|(f, _)| *f == field).count();
        assert_eq!(count("timeZone"), 1, "{problems:?}");
        assert_eq!(count("weekly"), 5, "{problems:?}");
        assert_eq!(count("holidays"), 3, "{problems:?}");
        let crowded: Vec<_> = (0..5)
            .map(|h| {
                (
                    Sat,
                    ["01:00", "03:00", "05:00", "07:00", "09:00"][h],
                    ["02:00", "04:00", "06:00", "08:00", "10:00"][h],
                )
            })
            .collect();
        assert!(Schedule::parse(&hours("UTC", &crowded, &[])).is_err());
        assert!(Schedule::parse(&hours("", &[], &[])).is_err());
    }
}
