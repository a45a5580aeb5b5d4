use clap::Parser;

/// glibc's allocator spent a fifth of the API's CPU on the read path (arena locking and
/// `malloc_consolidate` after every buffer of a kilobyte or more); mimalloc's per-thread
/// free lists do not.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
