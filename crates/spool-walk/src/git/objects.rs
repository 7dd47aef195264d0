//! Git's objects read from the repository's files: a commit's tree and the trees below it, so
//! the index can be compared with `HEAD` (a change staged but not committed is not the commit).
//!
//! Only what that comparison needs: loose objects and packs (index version 2, offset and ref
//! deltas), SHA-1 ids, and no alternates (an object found nowhere is `None`: the caller says it
//! cannot tell). Nothing here runs git, whose configuration could run a program of the
//! repository's author. Every read is bounded by sizes a hostile repository cannot raise: an
//! object of at most [`MAX_OBJECT`] bytes, a delta chain of at most [`MAX_CHAIN`] links. A
//! dependency for this (`gix-odb` and its 30-odd crates) would cost CI more build time than the
//! 250 lines cost to read.

use std::fs::File;
use std::io::Read as _;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use flate2::read::ZlibDecoder;

/// The largest object read: trees and commits are small (the largest tree of the Linux kernel
/// is under 100 KiB), so a larger one is refused rather than held.
pub const MAX_OBJECT: u64 = 64 << 20;
/// The longest delta chain followed (`git repack --depth` defaults to 50; `--aggressive` 250).
pub const MAX_CHAIN: usize = 1000;

/// An object's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Commit,
    Tree,
    Blob,
    Tag,
}

impl Kind {
    fn of_pack(code: u8) -> Option<Self> {
        Some(match code {
            1 => Self::Commit,
            2 => Self::Tree,
            3 => Self::Blob,
            4 => Self::Tag,
            _ => return None,
        })
    }

    fn of_name(name: &[u8]) -> Option<Self> {
        Some(match name {
            b"commit" => Self::Commit,
            b"tree" => Self::Tree,
            b"blob" => Self::Blob,
            b"tag" => Self::Tag,
            _ => return None,
        })
    }
}

/// One pack: its index, read where a look-up needs it (its 256 counts once, then about 20
/// ids of a binary search: an index is 28 bytes an object, 250 MB for a repository of nine
/// million, and a search must not read it whole), and its data file.
struct Pack {
    idx: File,
    /// How many ids start with each byte or a lower one (the index's fan-out table).
    fanout: Vec<u32>,
    count: usize,
    data: File,
}

/// Where the ids start in a version 2 pack index (after its header and fan-out table).
const IDS_AT: u64 = 8 + 1024;

/// The object store of a repository, its packs' indexes opened once.
pub struct Objects {
    dir: PathBuf,
    packs: Vec<Pack>,
}

impl Objects {
    /// The objects of the repository whose common git directory is `common_dir`.
    pub fn open(common_dir: &Path) -> Self {
        let dir = common_dir.join("objects");
        let mut packs = Vec::new();
        if let Ok(list) = std::fs::read_dir(dir.join("pack")) {
            for entry in list.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "idx")
                    && let Some(pack) = Pack::open(&path)
                {
                    packs.push(pack);
                }
            }
        }
        Self { dir, packs }
    }

    /// The object `id` (20 bytes), its kind and content; `None` when it is not found, too
    /// large, or does not read.
    pub fn read(&self, id: &[u8; 20]) -> Option<(Kind, Vec<u8>)> {
        if let Some(found) = self.loose(id) {
            return Some(found);
        }
        self.packs.iter().find_map(|pack| {
            let at = pack.offset_of(id)?;
            pack.read_at(at, self, 0)
        })
    }

    fn loose(&self, id: &[u8; 20]) -> Option<(Kind, Vec<u8>)> {
        let hex = crate::hex::hex("", id);
        let path = self.dir.join(hex.get(..2)?).join(hex.get(2..)?);
        let file = File::open(path).ok()?;
        let mut raw = Vec::new();
        // The header is short: the content is read after it, up to the size it states.
        ZlibDecoder::new(file)
            .take(MAX_OBJECT + 64)
            .read_to_end(&mut raw)
            .ok()?;
        let nul = memchr::memchr(0, &raw)?;
        let (name, size) = raw.get(..nul)?.split_at(memchr::memchr(b' ', &raw[..nul])?);
        let kind = Kind::of_name(name)?;
        let size: u64 = std::str::from_utf8(size.get(1..)?).ok()?.parse().ok()?;
        let body = raw.get(nul + 1..)?;
        (body.len() as u64 == size && size <= MAX_OBJECT).then(|| (kind, body.to_vec()))
    }
}

impl Pack {
    fn open(idx_path: &Path) -> Option<Self> {
        let idx = File::open(idx_path).ok()?;
        let mut head = vec![0u8; IDS_AT as usize];
        idx.read_exact_at(&mut head, 0).ok()?;
        if head.get(..8)? != b"\xfftOc\x00\x00\x00\x02" {
            return None;
        }
        let fanout: Vec<u32> = head[8..].chunks_exact(4).map(be32).collect();
        let count = *fanout.last()? as usize;
        // The ids, CRCs and offsets must all be there.
        let len = idx.metadata().ok()?.len();
        (IDS_AT + (count as u64).checked_mul(28)? <= len).then_some(())?;
        let data = File::open(idx_path.with_extension("pack")).ok()?;
        Some(Self {
            idx,
            fanout,
            count,
            data,
        })
    }

    fn read_idx<const N: usize>(&self, at: u64) -> Option<[u8; N]> {
        let mut b = [0u8; N];
        self.idx.read_exact_at(&mut b, at).ok()?;
        Some(b)
    }

    /// Where object `id` starts in the pack.
    fn offset_of(&self, id: &[u8; 20]) -> Option<u64> {
        let first = usize::from(id[0]);
        let lo = if first == 0 {
            0
        } else {
            *self.fanout.get(first - 1)? as usize
        };
        let hi = (*self.fanout.get(first)? as usize).min(self.count);
        let (mut lo, mut hi) = (lo, hi);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let at: [u8; 20] = self.read_idx(IDS_AT + mid as u64 * 20)?;
            match at.cmp(id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.offset_at(mid),
            }
        }
        None
    }

    fn offset_at(&self, i: usize) -> Option<u64> {
        let offsets = IDS_AT + self.count as u64 * 24;
        let small = u32::from_be_bytes(self.read_idx(offsets + i as u64 * 4)?);
        if small & 0x8000_0000 == 0 {
            return Some(u64::from(small));
        }
        let large = offsets + self.count as u64 * 4 + u64::from(small & 0x7fff_ffff) * 8;
        Some(u64::from_be_bytes(self.read_idx(large)?))
    }

    /// The object at `at`, its deltas applied (`depth` links followed so far).
    fn read_at(&self, at: u64, objects: &Objects, depth: usize) -> Option<(Kind, Vec<u8>)> {
        if depth > MAX_CHAIN {
            return None;
        }
        let mut head = [0u8; 32];
        let got = self.data.read_at(&mut head, at).ok()?;
        let head = head.get(..got)?;
        let first = *head.first()?;
        let code = (first >> 4) & 7;
        let mut size = u64::from(first & 0x0f);
        let mut shift = 4;
        let mut used = 1;
        let mut byte = first;
        while byte & 0x80 != 0 {
            byte = *head.get(used)?;
            used += 1;
            if shift > 60 {
                return None;
            }
            size |= u64::from(byte & 0x7f) << shift;
            shift += 7;
        }
        if size > MAX_OBJECT {
            return None;
        }
        match code {
            6 => {
                // The base lies this far before: git's offset varint.
                let (back, n) = offset_varint(head.get(used..)?)?;
                let base_at = at.checked_sub(back)?;
                let delta = self.inflate(at + (used + n) as u64, size)?;
                let (kind, base) = self.read_at(base_at, objects, depth + 1)?;
                Some((kind, apply_delta(&base, &delta)?))
            }
            7 => {
                let base_id: [u8; 20] = head.get(used..used + 20)?.try_into().ok()?;
                let delta = self.inflate(at + (used + 20) as u64, size)?;
                let (kind, base) = match self.offset_of(&base_id) {
                    Some(base_at) => self.read_at(base_at, objects, depth + 1)?,
                    None => objects.loose(&base_id)?,
                };
                Some((kind, apply_delta(&base, &delta)?))
            }
            _ => Some((Kind::of_pack(code)?, self.inflate(at + used as u64, size)?)),
        }
    }

    /// `size` bytes inflated from the zlib stream at `at`.
    fn inflate(&self, at: u64, size: u64) -> Option<Vec<u8>> {
        let reader = crate::walk::ReadFrom {
            file: &self.data,
            at,
        };
        let mut out = Vec::with_capacity(usize::try_from(size.min(1 << 20)).ok()?);
        ZlibDecoder::new(std::io::BufReader::with_capacity(16 << 10, reader))
            .take(size)
            .read_to_end(&mut out)
            .ok()?;
        (out.len() as u64 == size).then_some(out)
    }
}

/// Git's offset varint (pack offset deltas, index v4 paths): 7 bits a byte, each continuation
/// adding one. (value, bytes used).
pub(super) fn offset_varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in b.iter().enumerate().take(10) {
        if i > 0 {
            value = value.checked_add(1)?.checked_mul(128)?;
        }
        value |= u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// A delta's little-endian size varint.
fn size_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *b.get(*at)?;
        *at += 1;
        if shift > 63 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
}

/// `base` with `delta` applied: copies from the base and inserted bytes, to the size the delta
/// states.
fn apply_delta(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    let base_len = size_varint(delta, &mut at)?;
    let out_len = size_varint(delta, &mut at)?;
    if base_len != base.len() as u64 || out_len > MAX_OBJECT {
        return None;
    }
    let mut out = Vec::with_capacity(usize::try_from(out_len).ok()?);
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            // Copy: which offset and size bytes follow is in the op's low seven bits.
            let mut fields = [0u64; 7];
            for (bit, field) in fields.iter_mut().enumerate() {
                if op & (1 << bit) != 0 {
                    *field = u64::from(*delta.get(at)?);
                    at += 1;
                }
            }
            let offset = fields[0] | fields[1] << 8 | fields[2] << 16 | fields[3] << 24;
            let mut size = fields[4] | fields[5] << 8 | fields[6] << 16;
            if size == 0 {
                size = 0x10000;
            }
            let from = usize::try_from(offset).ok()?;
            let to = from.checked_add(usize::try_from(size).ok()?)?;
            out.extend_from_slice(base.get(from..to)?);
        } else if op != 0 {
            out.extend_from_slice(delta.get(at..at + usize::from(op))?);
            at += usize::from(op);
        } else {
            return None;
        }
        if out.len() as u64 > out_len {
            return None;
        }
    }
    (out.len() as u64 == out_len).then_some(out)
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The tree a commit names (its first header line: `tree <hex>`).
pub fn tree_of_commit(commit: &[u8]) -> Option<[u8; 20]> {
    let line = commit.strip_prefix(b"tree ")?.get(..40)?;
    parse_hex(line)
}

/// 40 hex digits as 20 bytes.
pub fn parse_hex(hex: &[u8]) -> Option<[u8; 20]> {
    if hex.len() != 40 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16);
    let mut id = [0u8; 20];
    for (i, pair) in hex.chunks(2).enumerate() {
        id[i] = u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()?;
    }
    Some(id)
}

/// One entry of a tree: its mode (as a number), name and id.
pub struct TreeEntry<'t> {
    pub mode: u32,
    pub name: &'t [u8],
    pub id: [u8; 20],
}

/// The entries of a tree object, in its order; `None` when it does not parse.
pub fn tree_entries(tree: &[u8]) -> Option<Vec<TreeEntry<'_>>> {
    let mut out = Vec::new();
    let mut rest = tree;
    while !rest.is_empty() {
        let space = memchr::memchr(b' ', rest)?;
        let mode = u32::from_str_radix(std::str::from_utf8(&rest[..space]).ok()?, 8).ok()?;
        let nul = space + memchr::memchr(0, rest.get(space..)?)?;
        let name = rest.get(space + 1..nul)?;
        let id = rest.get(nul + 1..nul + 21)?.try_into().ok()?;
        out.push(TreeEntry { mode, name, id });
        rest = rest.get(nul + 21..)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delta_copies_and_inserts_to_the_size_it_states() {
        let base = b"hello, world";
        // base 12, out 11: copy 5 from 0, insert "!!", copy 4 from 7 ("worl").
        let delta = [12, 11, 0x90, 5, 2, b'!', b'!', 0x91, 7, 4];
        assert_eq!(apply_delta(base, &delta).unwrap(), b"hello!!worl");
        // A copy past the base, a wrong base size, a size it does not reach: refused.
        assert_eq!(apply_delta(base, &[12, 5, 0x91, 10, 5]), None);
        assert_eq!(apply_delta(base, &[11, 5, 0x90, 5]), None);
        assert_eq!(apply_delta(base, &[12, 6, 0x90, 5]), None);
        assert_eq!(apply_delta(base, &[12, 1, 0]), None);
    }

    #[test]
    fn offset_varints_read_as_git_writes_them() {
        assert_eq!(offset_varint(&[0x05]), Some((5, 1)));
        assert_eq!(offset_varint(&[0x80, 0x00]), Some((128, 2)));
        assert_eq!(offset_varint(&[0x81, 0x7f]), Some((383, 2)));
        assert_eq!(offset_varint(&[0xff; 11]), None);
    }

    #[test]
    fn hex_ids_parse_and_odd_ones_do_not() {
        let id = parse_hex(b"ce013625030ba8dba906f756967f9e9ca394464a").unwrap();
        assert_eq!(id[0], 0xce);
        assert_eq!(id[19], 0x4a);
        assert_eq!(parse_hex(b"ce01"), None);
        assert_eq!(parse_hex(b"zz013625030ba8dba906f756967f9e9ca394464a"), None);
    }
}
