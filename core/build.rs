//! `refinery::embed_migrations!` reads `tenant_migrations/` at compile time but does not tell
//! cargo so: without this, a new migration file would not rebuild the crate that embeds them,
//! and a cached build would provision schemas without it.

fn main() {
    println!("cargo:rerun-if-changed=../tenant_migrations");
}
