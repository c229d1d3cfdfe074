//! The engine's stack in the browser: as big as the threads that run scripts natively
//! (`servitor::script::STACK_BYTES`, 16 MiB), instead of wasm's 1 MiB default.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size={}", 16 << 20);
    }
}
