//! Integration tests of spool-tokens: the encoder against tiktoken-rs.

mod encoder;
