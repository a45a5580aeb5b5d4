//! Accounts and authentication: registration, login, the current user, email verification,
//! password reset.

mod change_email;
pub mod extract;
mod login;
mod me;
pub mod password_reset;
mod refresh;
mod register;
pub mod users;
pub mod verification;

pub use register::REGISTER_QUOTA;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(register::register))
        .routes(routes!(login::login))
        .routes(routes!(me::me))
        .routes(routes!(refresh::refresh))
        .routes(routes!(verification::verify_email))
        .routes(routes!(verification::resend_verification))
        .routes(routes!(change_email::change_email))
        .routes(routes!(password_reset::forgot_password))
        .routes(routes!(password_reset::reset_password))
}
