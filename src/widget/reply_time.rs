//! "We usually reply in ...": the median first response of the workspace's recent
//! conversations (the newest 200 first responses of the last 30 days, as the reports count
//! them: `reports::figures::recent_first_responses`), counted in its business hours, as
//! `GET /widget/v1/availability` tells the widget.
//! A hint, not a report: each API process keeps it 10 minutes per workspace
//! (`crate::reply_times`), and forgets it when the workspace's business hours change there.

use sqlx::PgConnection;
use supportdesk_core::tenancy::TenantSchema;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::reports::figures;
use crate::state::AppState;
use supportdesk_core::business_hours::Schedule;

/// Fewer answered conversations than this tell nothing typical.
pub const MIN_SAMPLES: usize = 5;
/// How far back the measurement looks.
const WINDOW: time::Duration = time::Duration::days(30);

/// Workspace `workspace_id`'s typical reply, measured when this process does not know it.
pub async fn typical(
    state: &AppState,
    conn: &mut PgConnection,
    schema: &TenantSchema,
    workspace_id: Uuid,
    schedule: &Schedule,
) -> sqlx::Result<Option<i64>> {
    if let Some(known) = state.reply_times.known(workspace_id).await {
        return Ok(known);
    }
    let since = OffsetDateTime::now_utc() - WINDOW;
    let answered = figures::recent_first_responses(conn, schema, since).await?;
    let typical = median_business_seconds(schedule, &answered);
    state.reply_times.keep(workspace_id, typical).await;
    Ok(typical)
}

/// The median of the business time between each pair's two instants; `None` for fewer than
/// [`MIN_SAMPLES`] pairs.
pub fn median_business_seconds(
    schedule: &Schedule,
    pairs: &[(OffsetDateTime, OffsetDateTime)],
) -> Option<i64> {
    if pairs.len() < MIN_SAMPLES {
        return None;
    }
    let instant = |at: OffsetDateTime| jiff::Timestamp::from_second(at.unix_timestamp()).ok();
    let mut seconds: Vec<i64> = pairs
        .iter()
        .filter_map(|&(from, to)| Some(schedule.business_seconds(instant(from)?, instant(to)?)))
        .collect();
    seconds.sort_unstable();
    let middle = seconds.len() / 2;
    match seconds.len() {
        0 => None,
        n if n % 2 == 1 => seconds.get(middle).copied(),
        _ => Some((seconds[middle - 1] + seconds[middle]) / 2),
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use supportdesk_core::business_hours::{BusinessHours, Opening, Weekday};

    fn office() -> Schedule {
        use Weekday::*;
        let weekly = [Mon, Tue, Wed, Thu, Fri]
            .into_iter()
            .map(|day| Opening {
                day,
                open: "09:00".into(),
                close: "17:00".into(),
            })
            .collect();
        Schedule::parse(&BusinessHours {
            time_zone: "UTC".into(),
            weekly,
            holidays: vec![],
        })
        .unwrap()
    }

    #[test]
    fn the_median_counts_business_time_only() {
        // Friday 2026-11-20 16:30 UTC answered on Monday at 09:00 + k minutes: 30 + k minutes
        // of business time, whatever the weekend between.
        let asked = datetime!(2026-11-20 16:30 UTC);
        let pairs: Vec<_> = [0, 10, 20, 30, 40]
            .into_iter()
            .map(|k| {
                (
                    asked,
                    datetime!(2026-11-23 09:00 UTC) + time::Duration::minutes(k),
                )
            })
            .collect();
        assert_eq!(median_business_seconds(&office(), &pairs), Some(50 * 60));
        assert_eq!(
            median_business_seconds(&Schedule::always_open(), &pairs[..4]),
            None,
            "too few to tell"
        );
        let even: Vec<_> = [10, 20, 30, 40, 50, 60]
            .into_iter()
            .map(|k| (asked, asked + time::Duration::minutes(k)))
            .collect();
        assert_eq!(
            median_business_seconds(&Schedule::always_open(), &even),
            Some(35 * 60)
        );
    }
}
