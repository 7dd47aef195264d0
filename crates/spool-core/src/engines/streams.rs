//! One stream of a command's output (stdout or stderr) as an artifact of its own.
//!
//! Capture stores both streams in one artifact, in arrival order, and remembers where each
//! stream's runs start. Asking for one stream makes (once) a view artifact holding exactly that
//! stream's bytes in order; windows, search and continuations then work on it like on any other
//! artifact, by its own ref.

use crate::calls::{ReadParams, Target, ToolName};
use crate::dialect::Words;
use crate::envelope::{NextCall, Source, ViewOf};
use crate::error::{Error, Result};
use crate::store::{ArtifactMeta, NewArtifact, Store, Stream};

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Self::Stdout => "stdout",
            Self::Stderr => "stderr",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "stdout" => Ok(Self::Stdout),
            "stderr" => Ok(Self::Stderr),
            other => Err(Error::invalid_words(
                format!("unknown stream `{other}`").into(),
                Words::text("ask for ")
                    .arg_value(ToolName::Read, "stream", "stdout")
                    .then(" or ")
                    .arg_value(ToolName::Read, "stream", "stderr"),
            )),
        }
    }
}

/// The artifact holding only `stream` of the command output `reference`.
pub fn stream_view(store: &Store, reference: &str, stream: Stream) -> Result<ArtifactMeta> {
    let parent = store.open_artifact(reference)?;
    let meta = parent.meta().clone();
    let key = format!("stream:{reference}:{}", stream.name());
    if let Some(found) = store.find_by_dedup(&key)? {
        return Ok(found);
    }
    let runs = match std::fs::read(store.streams_path(reference)) {
        Ok(bytes) => decode_runs(&bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if meta.source.kind() != crate::envelope::SourceKind::Exec {
                return Err(Error::invalid_words(
                    format!("`{reference}` is not command output: it has no stdout or stderr")
                        .into(),
                    Words::text("read it whole: ").call(crate::envelope::NextCall::Read(
                        ReadParams::of(Target::reference(reference)),
                    )),
                ));
            }
            // A command that printed nothing.
            Vec::new()
        }
        Err(e) => return Err(Error::io(store.streams_path(reference), e)),
    };
    let version = meta.source.version.viewed_as(ViewOf {
        view_of: Some(reference.to_owned()),
        items_at: None,
        stream: Some(stream.name().to_owned()),
    });
    // A view holds what its artifact holds of the source.
    let mut new = NewArtifact::new(
        Source::new(
            format!("{} of {}", stream.name(), meta.source.desc),
            version,
        )
        .with_coverage(meta.source.coverage()),
    );
    new.preview = meta.preview;
    new.dedup_key = Some(key);
    new.redo = Some(NextCall::Read(ReadParams {
        stream: Some(stream.name().to_owned()),
        ..ReadParams::of(Target::reference(reference))
    }));
    let mut writer = store.create(new)?;
    for (i, &(start, s)) in runs.iter().enumerate() {
        if s != stream as u8 {
            continue;
        }
        let end = runs.get(i + 1).map_or(meta.bytes, |r| r.0);
        let mut at = start;
        while at < end {
            let n = (end - at).min(1 << 20) as usize;
            writer.write(&parent.read_at(at, n)?);
            at += n as u64;
        }
    }
    writer.finish(meta.state, meta.capture_detail.clone(), None)
}

fn decode_runs(bytes: &[u8]) -> Vec<(u64, u8)> {
    bytes
        .chunks_exact(9)
        .map(|c| {
            let mut at = [0u8; 8];
            at.copy_from_slice(&c[..8]);
            (u64::from_le_bytes(at), c[8])
        })
        .collect()
}
