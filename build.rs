//! `refinery::embed_migrations!` reads `migrations/` at compile time but does not tell cargo
//! so: without this, a new control-plane migration would not rebuild the API, and a cached
//! build would run without it.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
