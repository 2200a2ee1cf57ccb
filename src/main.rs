//! The `tracelab` binary: everything lives in the library's `cli` module.

fn main() {
    std::process::exit(tracelab::cli::main());
}
