//! The `onnxtxt` command: a thin shell over the library, one file per
//! subcommand under `cli/`.

mod cli;

use clap::Parser;

/// mimalloc instead of the system allocator: parsing builds the IR from
/// many small `String`s and `Vec`s, and glibc's malloc (with its
/// free-list consolidation) took a quarter of a node-heavy parse.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc commits the memory of its arena as it is used, without
/// transparent huge pages: by default it commits the whole arena up front
/// and asks for huge pages on it (`MADV_HUGEPAGE`), so that every 2 MiB
/// region the command touches is resident whole. That made the command
/// start at 8 MB of RSS instead of 4 and print a 1.7 MB model in 15.8 MB
/// instead of 9.1; the 4 KiB page faults cost 3 to 16% more CPU time
/// (bench/README.md). The option must be set before the first allocation,
/// which Rust's runtime makes before `main`: this runs from `.init_array`,
/// before the runtime.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static COMMIT_ON_DEMAND: extern "C" fn() = commit_on_demand;

#[cfg(target_os = "linux")]
extern "C" fn commit_on_demand() {
    /// `mi_option_arena_eager_commit`, its place in mimalloc's `mi_option_t`
    /// (the same in its v2 and v3 lines).
    const ARENA_EAGER_COMMIT: std::ffi::c_int = 4;
    unsafe extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    // SAFETY: mi_option_set stores an option's value (mimalloc reads it when
    // it reserves an arena); it takes any option index and value.
    unsafe { mi_option_set(ARENA_EAGER_COMMIT, 0) };
}

fn main() {
    let args = cli::Args::parse();
    let status = match args.command.run(args.error_format) {
        Ok(()) => 0,
        Err(failure) => {
            let status = failure.code();
            failure.report(args.error_format);
            status
        }
    };
    cli::end(status)
}
