//! What a rule reports, and the size limits the rules share. A file of its
//! own so that the rules and the runner both import it, not each other.

/// Longest non-test source file.
pub const MAX_FILE_LINES: usize = 800;
/// Longest non-test Rust function.
pub const MAX_FUNCTION_LINES: usize = 120;

/// One broken rule at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub rule: &'static str,
    pub message: String,
    pub hint: String,
}
