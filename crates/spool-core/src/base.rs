//! Layer 1, the base: text cut to a size, numbers and times in words, UTF-8 boundaries, token
//! counts. Each stands alone (one may use another here); nothing here knows an artifact.

pub mod clip;
pub mod clock;
pub mod numbers;
pub mod tokens;
pub mod utf8;
