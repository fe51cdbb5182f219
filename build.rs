//! Rebuilds the crate when a migration is added or edited: `sqlx::migrate!` embeds the files
//! of `migrations/` at compile time, and cargo does not otherwise see them change.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
