use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = supportdesk::cli::Cli::parse();
    match supportdesk::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
