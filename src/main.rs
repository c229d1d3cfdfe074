//! The `servitor` command line; the commands live in [`cli`]. The command runs on a thread with
//! `script::STACK_BYTES` of stack, whatever `ulimit -s` says.

mod cli;

/// mimalloc rather than the system's: scripts allocate and free small values (strings, maps,
/// arrays) at every step, and glibc's allocator took ~13 % of a sim's instructions.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // On a thread whose stack does not depend on `ulimit -s`: see `script::STACK_BYTES`.
    std::thread::Builder::new()
        .name("servitor".into())
        .stack_size(servitor::script::STACK_BYTES)
        .spawn(cli::main)
        .map_or_else(
            |_| cli::main(),
            |t| t.join().unwrap_or(std::process::ExitCode::from(101)),
        )
}
