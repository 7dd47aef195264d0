//! Layer 2, the model: what an answer is made of. Every tool's arguments and the calls made of
//! them (`calls`), the envelope and its versions, the next
//! calls and the words that name arguments (`dialect`, `in_words`), the error every tool returns,
//! refs and cursors. Built on the base alone: nothing here reads or stores.

pub mod calls;
pub mod cursor;
pub mod dialect;
pub mod envelope;
pub mod error;
pub mod in_words;
pub mod refs;
