//! The Pattern Playground UI (feature `app`, built by trunk for wasm32). It only mounts: the
//! components live in `app/`, the messages to the engine worker in `protocol.rs`.
mod app;
mod protocol;

fn main() {
    app::start();
}
