//! The `spool` command (the library `spool_tools` is the command; this is its entry point).

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(spool_tools::main_with(std::env::args_os()))
}
