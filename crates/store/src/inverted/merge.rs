//! Merging posting streams: a word's runs from several segments written
//! as one segment's, in page order, long runs no other segment's pages
//! interleave copied as they are; and a part rewritten without one entry.

use crate::codec;
use crate::schema::{PageId, WordId};
use crate::Result;

use super::part_writer::PartWriter;
use super::run::{entries, runs, Entries, Entry, Part};

/// Runs of at least this many bytes that a merge finds whole before the
/// other segments' pages are copied as they are: their head and byte-coded
/// first entry cost a few percent of such a run, and coding the entries
/// again cost more CPU than the rest of the merge.
pub(super) const RAW_RUN_BYTES: usize = 128;

/// Merges one word's stored runs into a [`PartWriter`] in page order, for
/// a merge of segments (each run in page order, no page in two runs).
/// Consecutive segments' pages mostly follow one another, interleaving
/// only where a slow page finished late, so the run with the lowest page
/// gives entries until another run's next page comes first.
#[derive(Default)]
struct RunMerger<'a> {
    cursors: Vec<Cursor<'a>>,
}

/// A run being merged: its bytes, its entries, the current one, and
/// whether that is the run's first.
struct Cursor<'a> {
    bytes: &'a [u8],
    entries: Entries<'a>,
    current: Option<Entry<'a>>,
    at_start: bool,
}

impl<'a> RunMerger<'a> {
    /// Writes `word`'s entries from `runs` to `out` in page order; a page
    /// in two runs, or out of order in one, is corrupt.
    fn merge(
        &mut self,
        out: &mut PartWriter,
        word: WordId,
        runs: impl Iterator<Item = &'a [u8]>,
    ) -> Result<()> {
        self.cursors.clear();
        for bytes in runs {
            let mut entries = entries(bytes);
            let current = entries.next().transpose()?;
            self.cursors.push(Cursor {
                bytes,
                entries,
                current,
                at_start: true,
            });
        }
        loop {
            // The run with the lowest next page, and the lowest next page
            // of the others: the first entry that must come from elsewhere.
            let mut pick: Option<(usize, PageId)> = None;
            let mut bound = u64::MAX;
            for (i, c) in self.cursors.iter().enumerate() {
                let Some(page) = c.current.map(|e| e.page) else {
                    continue;
                };
                match pick {
                    Some((_, best)) if page >= best => bound = bound.min(u64::from(page)),
                    _ => {
                        if let Some((_, best)) = pick {
                            bound = bound.min(u64::from(best));
                        }
                        pick = Some((i, page));
                    }
                }
            }
            let Some((i, _)) = pick else {
                return Ok(());
            };
            let c = &mut self.cursors[i];
            let last = c.entries.last_page();
            if let (true, Some(first)) = (c.at_start, c.current) {
                if u64::from(last) < bound && c.bytes.len() >= RAW_RUN_BYTES {
                    out.push_run(word, c.bytes, first.page, last)?;
                    c.current = None;
                    continue;
                }
            }
            c.at_start = false;
            // The pick's first entry goes whatever the bound: a page in two
            // runs then meets the writer's order check.
            while let Some(e) = c.current {
                out.push(word, &e)?;
                c.current = c.entries.next().transpose()?;
                if c.current.is_some_and(|next| u64::from(next.page) >= bound) {
                    break;
                }
            }
        }
    }
}

/// One step of a segment merge: every run of `parts` (stored parts, each
/// with its key's word, each segment's in key order) whose word `keep`
/// takes, merged word by word into `out`.
pub fn merge_parts<'a>(
    out: &mut PartWriter,
    parts: impl Iterator<Item = (WordId, &'a [u8])>,
    keep: impl Fn(WordId) -> bool,
) -> Result<()> {
    let mut kept: Vec<(WordId, &[u8])> = Vec::new();
    for (key_word, part) in parts {
        for run in runs(key_word, part) {
            let run = run?;
            if keep(run.word) {
                kept.push((run.word, run.bytes));
            }
        }
    }
    // Each segment's runs are in word order already: the stable sort
    // merges those sequences instead of sorting from scratch.
    kept.sort_by_key(|&(word, _)| word);
    let mut merger = RunMerger::default();
    for group in kept.chunk_by(|a, b| a.0 == b.0) {
        merger.merge(out, group[0].0, group.iter().map(|&(_, bytes)| bytes))?;
    }
    Ok(())
}

/// The parts that replace the part `key` without the entry of (`word`,
/// `page`), fewer when it was the part's only one; None when the part
/// does not hold it.
pub fn part_without(
    key: &[u8],
    part: &[u8],
    word: WordId,
    page: PageId,
) -> Result<Option<Vec<Part>>> {
    let (segment, key_word, _) = codec::split_triple_key(key)?;
    let mut out = PartWriter::new(segment);
    let mut found = false;
    for run in runs(key_word, part) {
        let run = run?;
        for e in run.entries() {
            let e = e?;
            if run.word == word && e.page == page {
                found = true;
            } else {
                out.push(run.word, &e)?;
            }
        }
    }
    Ok(found.then(|| out.finish()))
}
