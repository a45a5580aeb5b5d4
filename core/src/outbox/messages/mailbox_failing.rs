//! The email telling an Owner that their workspace's IMAP mailbox refuses its login: sent once
//! per failure (the mailbox's `owners_alerted`), again only after it worked in between.

use sqlx::PgPool;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct MailboxFailing {
    pub email: String,
    pub full_name: String,
    pub workspace_name: String,
    pub host: String,
    pub user: String,
    pub error: String,
}

/// The alert for Owner `user_id` of workspace `workspace_id`, while its mailbox still fails and
/// they are still an active Owner.
pub async fn pending(
    db: &PgPool,
    workspace_id: Uuid,
    user_id: Uuid,
) -> sqlx::Result<Option<MailboxFailing>> {
    let row: Option<(String, String, String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT u.email, u.full_name, w.name, m.host, m.username, m.last_error
           FROM public.email_mailboxes m
           JOIN public.workspaces w ON w.id = m.workspace_id AND w.status = 'active'
           JOIN public.memberships ms ON ms.workspace_id = w.id AND ms.user_id = $2
                AND ms.role = 'admin' AND ms.status = 'active'
           JOIN public.users u ON u.id = ms.user_id
          WHERE m.workspace_id = $1 AND m.status = 'failing'",
    )
    .bind(workspace_id)
    .bind(user_id)
    .fetch_optional(db)
    .await?;
    Ok(row.map(
        |(email, full_name, workspace_name, host, user, error)| MailboxFailing {
            email,
            full_name,
            workspace_name,
            host,
            user,
            error: error.unwrap_or_default(),
        },
    ))
}
