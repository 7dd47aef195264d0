//! Layer 4, rendering: an answer in a caller's dialect. The banner and the text (`render`), the
//! structured form (`structured`), and the cap an answer must fit in every form it is sent in (`fit`).
//! Beside storage, not on it: rendering reads no artifact.

pub mod fit;
pub mod render;
pub mod structured;
