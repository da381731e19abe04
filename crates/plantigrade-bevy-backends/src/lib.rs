//! Nothing to use: this crate exists so that a workspace build compiles `plantigrade-bevy`
//! with both of its physics backends (`rapier` and `avian`), and `cargo test --workspace`
//! runs the plugin's tests on each (see its `Cargo.toml`).
