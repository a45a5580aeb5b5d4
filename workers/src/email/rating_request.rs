//! The email asking the customer of a resolved email conversation to rate it: five links to
//! the widget app's rating page, one per score (`messages::rating_request`). Everything the
//! customer or the workspace wrote (names, the subject) is shown as a quoted datum.

use askama::Template;
use supportdesk_core::outbox::messages::rating_request::RatingRequest;
use time::macros::format_description;

use super::notifications::brand_color;
use super::render::{Email, PRODUCT, Renderer, datum};

pub const RATING_REQUEST_SUBJECT: &str = "How did we do?";

/// The five answers, from the worst.
const LABELS: [&str; 5] = ["Very unhappy", "Unhappy", "Neutral", "Happy", "Very happy"];

struct Choice {
    score: u8,
    label: &'static str,
    link: String,
}

#[derive(Template)]
#[template(path = "rating_request.txt", escape = "none")]
struct RatingText<'a> {
    name: Option<&'a str>,
    team: &'a str,
    number: i64,
    subject: Option<&'a str>,
    choices: &'a [Choice],
    until: &'a str,
    product: &'a str,
}

#[derive(Template)]
#[template(path = "rating_request.html")]
struct RatingHtml<'a> {
    name: Option<&'a str>,
    team: &'a str,
    number: i64,
    subject: Option<&'a str>,
    choices: &'a [Choice],
    until: &'a str,
    color: &'a str,
    product: &'a str,
}

impl Renderer {
    /// The rating request, its links under the widget app at `widget_url`.
    pub fn rating_request(
        &self,
        request: &RatingRequest,
        widget_url: &str,
    ) -> anyhow::Result<Email> {
        let choices: Vec<Choice> = (1..=5u8)
            .zip(LABELS)
            .map(|(score, label)| Choice {
                score,
                label,
                link: request.link(widget_url, score),
            })
            .collect();
        let team = &datum(&request.team);
        let name = request.name.as_deref().map(datum);
        let name = name.as_deref().filter(|n| !n.is_empty());
        let subject = request.subject.as_deref().map(datum);
        let subject = subject.as_deref().filter(|s| !s.is_empty());
        let until =
            request
                .expires_at
                .to_offset(time::UtcOffset::UTC)
                .format(format_description!(
                    "[year]-[month]-[day] [hour]:[minute] UTC"
                ))?;
        let text = RatingText {
            name,
            team,
            number: request.number,
            subject,
            choices: &choices,
            until: &until,
            product: PRODUCT,
        }
        .render()?;
        let html = RatingHtml {
            name,
            team,
            number: request.number,
            subject,
            choices: &choices,
            until: &until,
            color: brand_color(request.brand_color.as_deref()),
            product: PRODUCT,
        }
        .render()?;
        Ok(Email {
            to: request.email.clone(),
            subject: RATING_REQUEST_SUBJECT.to_owned(),
            text,
            html,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> RatingRequest {
        RatingRequest {
            email: "eve@example.com".into(),
            name: Some("Eve <script>".into()),
            team: "Acme Help".into(),
            brand_color: Some("#0b7a75".into()),
            number: 12,
            subject: Some("Broken <b>lamp</b>".into()),
            workspace_id: uuid::Uuid::nil(),
            schema: supportdesk_core::tenancy::TenantSchema::parse(
                "ws_00000000000000000000000000000001",
            )
            .unwrap(),
            conversation_id: uuid::Uuid::nil(),
            token: "tok_en-1".into(),
            expires_at: time::macros::datetime!(2026-12-06 10:30 UTC),
        }
    }

    #[test]
    fn the_email_has_one_link_per_score_and_escapes_what_others_wrote() {
        let renderer =
            Renderer::new("https://app.example", "Support Desk <noreply@example.com>").unwrap();
        let email = renderer
            .rating_request(&request(), "https://widget.example")
            .unwrap();
        assert_eq!(email.subject, RATING_REQUEST_SUBJECT);
        assert_eq!(email.to, "eve@example.com");
        for score in 1..=5 {
            let link = format!(
                "https://widget.example/rate?w=00000000-0000-0000-0000-000000000000&t=tok_en-1&r={score}"
            );
            assert!(email.text.contains(&link), "{}", email.text);
            assert!(
                email
                    .html
                    .contains(&format!("href=\"{}\"", link.replace('&', "&#38;")))
                    || email.html.contains(&format!("href=\"{link}\"")),
                "{}",
                email.html
            );
        }
        for part in [&email.text, &email.html] {
            assert!(part.contains("#12"), "{part}");
            assert!(part.contains("2026-12-06 10:30 UTC"), "{part}");
            assert!(part.contains("Acme Help"), "{part}");
        }
        assert!(!email.html.contains("<script>"), "{}", email.html);
        assert!(!email.html.contains("<b>lamp"), "{}", email.html);
        assert!(email.html.contains("#0b7a75"));
    }
}
