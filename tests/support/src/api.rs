//! The real API on a random local port, stopped when the returned handle is dropped.

use supportdesk::startup::Application;
use supportdesk::state::AppState;
use supportdesk_core::config::Settings;
use tokio::sync::oneshot;

pub struct RunningApi {
    /// `http://127.0.0.1:<port>`
    pub address: String,
    /// `http://127.0.0.1:<port>` of the metrics listener.
    pub metrics_address: String,
    pub state: AppState,
    _stop: oneshot::Sender<()>,
}

pub async fn spawn_api(settings: Settings) -> RunningApi {
    let app = Application::build(settings, "127.0.0.1:0")
        .await
        .expect("build the API");
    let address = format!("http://{}", app.local_addr().expect("bound"));
    let metrics_address = format!("http://{}", app.metrics_addr().expect("bound"));
    let state = app.state().clone();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(app.run_until(async move {
        let _ = stopped.await;
    }));
    RunningApi {
        address,
        metrics_address,
        state,
        _stop: stop,
    }
}
