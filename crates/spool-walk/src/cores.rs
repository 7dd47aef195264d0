//! How many threads a parallel step uses.

/// Every core, at most `most` (ripgrep's walk takes at most 12).
pub fn threads(most: usize) -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(most).max(1))
}
