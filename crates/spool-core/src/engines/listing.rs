//! Directory listings, paged by keyset: a page continues after the last name it returned, so
//! entries created or deleted between pages neither repeat nor hide the ones that stayed.

use std::path::Path;

use nix::sys::stat::{FileStat, SFlag};

use globset::{Glob, GlobMatcher};
use serde::{Deserialize, Serialize};

use crate::calls::{ListParams, ReadParams, Target, ToolName};
use crate::cursor;
use crate::dialect::Words;
use crate::envelope::NextCall;
use crate::error::{Error, Result};
use crate::page::Page;
use crate::store::Store;
use spool_walk::confined::Below;
use spool_walk::roots::Roots;

pub const DEFAULT_PAGE: usize = 200;
pub const MAX_PAGE: usize = crate::calls::MAX_ENTRIES;

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Entry {
    pub name: String,
    /// Relative to the listed directory (for recursive listings, with its subdirectories).
    pub path: String,
    pub kind: String,
    pub size: u64,
    pub mtime: Option<String>,
}

/// What to list.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListQuery<'a> {
    /// A directory inside the roots.
    pub path: &'a str,
    /// Only entries whose name or path matches this glob.
    pub glob: Option<&'a str>,
    /// Include subdirectories (the walk skips hidden and `.gitignore`d entries...
    pub recursive: bool,
    /// ...unless this is set).
    pub hidden: bool,
}

/// How long counting the entries a recursive listing skipped may take.
const COUNT_SKIPPED_FOR: std::time::Duration = std::time::Duration::from_secs(2);

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct ListCursor {
    k: String,
    q: String,
    after: String,
}

/// A page of the entries of a directory (inside the roots), sorted by path. A recursive page
/// says how many hidden or ignored entries it left out.
pub fn list(
    store: &Store,
    roots: &Roots,
    query: ListQuery<'_>,
    limit: Option<usize>,
    cursor_text: Option<&str>,
) -> Result<Page<Entry>> {
    let ListQuery {
        path,
        glob,
        recursive,
        hidden,
    } = query;
    let limit = limit.unwrap_or(DEFAULT_PAGE);
    if limit == 0 || limit > MAX_PAGE {
        return Err(Error::invalid_words(
            Words::default()
                .arg(ToolName::List, "limit")
                .then(format!(" must be between 1 and {MAX_PAGE} (got {limit})")),
            Words::text("ask for ").arg_value(ToolName::List, "limit", DEFAULT_PAGE),
        ));
    }
    // Every name the walk finds is looked up again from this descriptor (see `Below`).
    let (dir_fd, dir) = roots.open_dir(path).map_err(|e| {
        if roots.resolve(path).is_ok_and(|p| !p.is_dir()) {
            Error::invalid_words(
                format!("`{path}` is a file, not a directory").into(),
                Words::text("read it with ")
                    .call(NextCall::Read(ReadParams::of(Target::path(path)))),
            )
        } else {
            e.into()
        }
    })?;
    let mut below = Below::new(dir_fd);
    let matcher = match glob {
        Some(g) => Some(
            Glob::new(g)
                .map_err(|e| {
                    Error::invalid(
                        format!("invalid glob `{g}`: {e}"),
                        Some("for example `*.rs` or `**/*.md`".to_owned()),
                    )
                })?
                .compile_matcher(),
        ),
        None => None,
    };
    let digest = cursor::digest(&[
        &dir.display().to_string(),
        glob.unwrap_or(""),
        match (recursive, hidden) {
            (false, _) => "",
            (true, false) => "r",
            (true, true) => "rh",
        },
    ]);
    let after = match cursor_text {
        Some(c) => {
            let p: ListCursor = cursor::open(store, c)?;
            if p.k != "list" || p.q != digest {
                return Err(cursor::mismatch("another listing"));
            }
            Some(p.after)
        }
        None => None,
    };
    let mut found = collect(&dir, &mut below, recursive, hidden, matcher.as_ref())?;
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let total = found.len() as u64;
    let skipped = (recursive && !hidden).then(|| {
        let all = count_all(&dir, &mut below, matcher.as_ref());
        serde_json::json!({
            "hidden_or_ignored": all.map(|all| all.saturating_sub(total)),
            "include_with": "hidden",
        })
    });
    let start = after
        .as_ref()
        .map_or(0, |a| found.partition_point(|(n, _)| n <= a));
    let mut items = Vec::with_capacity(limit);
    for (rel, stat) in found.iter().skip(start).take(limit + 1) {
        items.push(entry(rel, stat));
    }
    let has_more = items.len() > limit;
    items.truncate(limit);
    let after: Vec<String> = items
        .iter()
        .map(|e| {
            cursor::seal(
                store,
                &ListCursor {
                    k: "list".into(),
                    q: digest.clone(),
                    after: e.path.clone(),
                },
            )
        })
        .collect();
    let next_cursor = if has_more {
        after.last().cloned()
    } else {
        None
    };
    let repeat = ListParams {
        glob: glob.map(str::to_owned),
        recursive,
        hidden,
        limit: Some(limit),
        ..ListParams::of(path)
    };
    let mut page = Page {
        items,
        next_cursor,
        has_more,
        page_size: limit,
        max_page_size: MAX_PAGE,
        total: Some(total),
        skipped,
        next: Vec::new(),
        reason: None,
        repeat: Some(NextCall::List(repeat)),
        after,
    };
    page.set_next();
    Ok(page)
}

fn glob_keeps(glob: Option<&GlobMatcher>, rel: &str) -> bool {
    glob.is_none_or(|g| {
        g.is_match(rel) || Path::new(rel).file_name().is_some_and(|n| g.is_match(n))
    })
}

/// Every entry below `dir` that the glob keeps, hidden and ignored ones too; `None` when
/// counting them takes longer than `COUNT_SKIPPED_FOR`.
fn count_all(dir: &Path, below: &mut Below, glob: Option<&GlobMatcher>) -> Option<u64> {
    let started = std::time::Instant::now();
    let walk = ignore::WalkBuilder::new(dir)
        .follow_links(false)
        .standard_filters(false)
        .build();
    let mut n = 0;
    for entry in walk.flatten() {
        if started.elapsed() > COUNT_SKIPPED_FOR {
            return None;
        }
        if entry.depth() == 0 {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(dir)
            && glob_keeps(glob, &rel.to_string_lossy())
            && below.stat(rel).is_some()
        {
            n += 1;
        }
    }
    Some(n)
}

/// The entries below `dir` the walk keeps, each with its status as looked up from `below`
/// (names that are not below it are dropped).
fn collect(
    dir: &Path,
    below: &mut Below,
    recursive: bool,
    hidden: bool,
    glob: Option<&GlobMatcher>,
) -> Result<Vec<(String, FileStat)>> {
    let mut out = Vec::new();
    let mut keep = |rel: &Path| {
        let text = rel.to_string_lossy();
        if glob_keeps(glob, &text)
            && let Some(stat) = below.stat(rel)
        {
            out.push((text.into_owned(), stat));
        }
    };
    if recursive {
        let walk = ignore::WalkBuilder::new(dir)
            .follow_links(false)
            .standard_filters(!hidden)
            .build();
        for entry in walk.flatten() {
            if entry.depth() == 0 {
                continue;
            }
            if let Ok(rel) = entry.path().strip_prefix(dir) {
                keep(rel);
            }
        }
    } else {
        let read = std::fs::read_dir(dir).map_err(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied => Error::Forbidden {
                path: dir.to_owned(),
                reason: "permission denied by the operating system".into(),
            },
            _ => Error::io(dir, e),
        })?;
        for entry in read.flatten() {
            keep(Path::new(&entry.file_name()));
        }
    }
    Ok(out)
}

fn entry(rel: &str, stat: &FileStat) -> Entry {
    let kind = match SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT {
        SFlag::S_IFLNK => "symlink",
        SFlag::S_IFDIR => "dir",
        SFlag::S_IFREG => "file",
        _ => "other",
    };
    let millis = stat
        .st_mtime
        .saturating_mul(1_000)
        .saturating_add(stat.st_mtime_nsec / 1_000_000);
    Entry {
        name: Path::new(rel)
            .file_name()
            .map_or_else(|| rel.to_owned(), |n| n.to_string_lossy().into_owned()),
        path: rel.to_owned(),
        kind: kind.to_owned(),
        size: u64::try_from(stat.st_size).unwrap_or(0),
        mtime: (millis >= 0).then(|| crate::clock::rfc3339(millis)),
    }
}
