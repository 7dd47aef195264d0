//! What the model reads about the server as a whole, at the handshake. Product copy, like each
//! tool's description (in its file of spool-toolset): it says what is stored, for how long, and
//! how to continue.

const INSTRUCTIONS: &str = "spool keeps every tool output whole. Answers that show only part of something say which \
part was shown, how big the whole is, why they stopped, and the exact next call (in `next`; \
`next_templates` needs a `pattern` of yours). \
Outputs are stored as artifacts (refs like sp_...) for 7 days: continue with `read`, and search \
the whole of one with `search` before concluding that something is absent.";

/// The instructions, with the store's own artifact lifetime in place of the default's.
pub fn instructions(ttl: std::time::Duration) -> String {
    INSTRUCTIONS.replace("7 days", &spool_core::in_words::lifetime(ttl))
}
