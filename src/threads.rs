//! Work shared between the machine's cores: scoped threads whose panic,
//! if any, goes on in the thread that waits for them.

/// Runs `there` on a scoped thread while `here` runs on this one, and
/// gives both results once both are done. A panic of `there` is raised
/// again here.
pub fn both<A, B: Send>(here: impl FnOnce() -> A, there: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|s| {
        let there = s.spawn(there);
        let here = here();
        (here, joined(there))
    })
}

/// What a scoped thread returned, waited for; its panic raised again in
/// the thread that waits.
pub fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The calling thread runs only when the others leave a core free: work
/// that can come later (the simulator's first look at a large file, its
/// selector index) leaves the cores to the UI's tree and keys (on Linux,
/// where a thread has a nice value of its own; elsewhere this does
/// nothing).
pub fn yield_the_cores() {
    #[cfg(target_os = "linux")]
    {
        // Lowering a priority is always allowed; failing, it only runs
        // as before.
        let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19);
    }
}

/// The same for a thread of its own (not scoped).
pub fn awaited<T>(thread: std::thread::JoinHandle<T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_gives_each_result_in_its_place() {
        let mut here = Vec::new();
        let (a, b) = both(
            || {
                here.push(1);
                "here"
            },
            || 2 + 2,
        );
        assert_eq!((a, b, here), ("here", 4, vec![1]));
    }

    #[test]
    fn a_panic_on_the_other_thread_goes_on_in_this_one() {
        let caught = std::panic::catch_unwind(|| both(|| 1, || -> u8 { panic!("there") }));
        let panic = caught.expect_err("the thread's panic");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"there"));
    }
}
