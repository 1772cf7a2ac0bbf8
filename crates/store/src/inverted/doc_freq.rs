//! The `doc_freq` table: each word's document frequency and its most
//! written spellings, [`BLOCK_WORDS`] words to a record (keyed by the
//! word id's high bits), and how a transaction's changes rewrite a record.
//!
//! A transaction of a crawl changes the counts of about a third of the
//! vocabulary, spread over every id. One record per word (with its stem)
//! made every transaction copy every leaf of a 2 MB table, and LMDB keeps
//! the last two transactions' old copies free: 7% of a 10k-page store
//! was those copies. Packed without their stems (kept once, in `words`,
//! when the word is made) the counts fill a fifth as many leaves (0.44
//! MB for 63,000 words, against 2.16).
//!
//! An entry is `varint df << 2 | kind`. Kind 0: no spelling. Kind 1: the
//! stem only, written on every page of the word (82% of the 300-page
//! bench site's words: one byte where they took two). Kind 2: one other
//! spelling only, on every page, coded as [`Spelling::put`] says (17%).
//! Kind 3: `varint n`, then the `n` (at most [`FORMS_KEPT`]) spellings,
//! most written first: `varint count << 1 | other`, then an other
//! spelling's coding. Ids past a record's last entry have none (df 0, no
//! spelling).

use super::spelling::Spelling;
use crate::codec::{put_varint, u32_key, VarintReader};
use crate::schema::WordId;
use crate::{Result, StoreError};

/// Words per record.
pub const BLOCK_WORDS: u32 = 64;

/// Spellings kept per word: enough to tell the usual one from a stray one.
pub const FORMS_KEPT: usize = 3;

/// An entry's kinds (its header's low two bits).
const NO_SPELLING: u64 = 0;
const STEM_ONLY: u64 = 1;
const OTHER_ONLY: u64 = 2;
const LISTED: u64 = 3;

/// The key of the record holding word `id`'s entry.
pub fn block_key(id: WordId) -> [u8; 4] {
    u32_key(id / BLOCK_WORDS)
}

/// The first word id of the record keyed `block`.
pub fn first_word(block: u32) -> WordId {
    block.saturating_mul(BLOCK_WORDS)
}

fn slot(id: WordId) -> usize {
    (id % BLOCK_WORDS) as usize
}

/// One word's entry, its spellings still encoded.
#[derive(Debug, Clone, Copy, Default)]
pub struct Entry<'a> {
    pub df: u32,
    kind: u64,
    forms: usize,
    bytes: &'a [u8],
}

impl<'a> Entry<'a> {
    /// The spellings with their page counts, most written first.
    pub fn forms(&self) -> impl Iterator<Item = Result<(Spelling<'a>, u32)>> + 'a {
        let mut r = VarintReader::new(self.bytes);
        let (kind, df) = (self.kind, self.df);
        (0..self.forms).map(move |_| match kind {
            STEM_ONLY => Ok((Spelling::Stem, df)),
            OTHER_ONLY => Ok((Spelling::read(&mut r)?, df)),
            _ => read_listed(&mut r),
        })
    }
}

/// One spelling of a listed entry, with its count.
fn read_listed<'a>(r: &mut VarintReader<'a>) -> Result<(Spelling<'a>, u32)> {
    let head = r.next_u64()?;
    let count = u32::try_from(head >> 1)
        .map_err(|_| StoreError::corrupt("doc_freq spelling count overflows"))?;
    let spelling = if head & 1 == 0 {
        Spelling::Stem
    } else {
        Spelling::read(r)?
    };
    Ok((spelling, count))
}

/// Reads a record's entries in id order.
struct Entries<'a> {
    r: VarintReader<'a>,
}

impl<'a> Entries<'a> {
    fn new(block: &'a [u8]) -> Entries<'a> {
        Entries {
            r: VarintReader::new(block),
        }
    }

    /// The next entry and its whole bytes; None past the record's end.
    fn next_entry(&mut self) -> Result<Option<(Entry<'a>, &'a [u8])>> {
        if self.r.is_empty() {
            return Ok(None);
        }
        let start = self.r.remaining();
        let head = self.r.next_u64()?;
        let df = u32::try_from(head >> 2)
            .map_err(|_| StoreError::corrupt("doc_freq count overflows"))?;
        let kind = head & 3;
        let forms = match kind {
            NO_SPELLING => 0,
            STEM_ONLY | OTHER_ONLY => 1,
            _ => usize::try_from(self.r.next_u64()?)
                .map_err(|_| StoreError::corrupt("doc_freq spellings overflow"))?,
        };
        let at = self.r.remaining();
        match kind {
            OTHER_ONLY => {
                Spelling::read(&mut self.r)?;
            }
            LISTED => {
                for _ in 0..forms {
                    read_listed(&mut self.r)?;
                }
            }
            _ => {}
        }
        let rest = self.r.remaining();
        let entry = Entry {
            df,
            kind,
            forms,
            bytes: &at[..at.len() - rest.len()],
        };
        Ok(Some((entry, &start[..start.len() - rest.len()])))
    }
}

/// Word `id`'s entry in the record `block` that holds it (none: df 0).
pub fn entry_of(block: &[u8], id: WordId) -> Result<Entry<'_>> {
    let mut entries = Entries::new(block);
    for _ in 0..slot(id) {
        if entries.next_entry()?.is_none() {
            return Ok(Entry::default());
        }
    }
    Ok(entries.next_entry()?.map(|(e, _)| e).unwrap_or_default())
}

/// Every entry of the record keyed `block`, with its word id.
pub fn each_entry<'a>(
    block: u32,
    record: &'a [u8],
    mut f: impl FnMut(WordId, Entry<'a>) -> Result<()>,
) -> Result<()> {
    let mut entries = Entries::new(record);
    let mut id = first_word(block);
    while let Some((e, _)) = entries.next_entry()? {
        if id / BLOCK_WORDS != block {
            return Err(StoreError::corrupt(format!(
                "doc_freq record {block} holds more than {BLOCK_WORDS} words"
            )));
        }
        f(id, e)?;
        id += 1;
    }
    Ok(())
}

/// What a transaction changes in one word's entry: pages gained (or
/// lost, below zero), and the spellings its pages wrote, with the word's
/// stem when they wrote any other than it.
#[derive(Debug, Clone, Copy)]
pub struct Change<'v> {
    pub df: i32,
    pub stem_votes: u32,
    pub votes: &'v [(&'v str, u32)],
    pub stem: &'v str,
}

/// Writes an entry of `df` pages with `forms` (counts may repeat a
/// spelling: they add up), ranked: the most written [`FORMS_KEPT`], ties
/// the stem first and then by spelling, none for a word no page holds (it
/// starts its votes afresh when one does again). Without the word's
/// `stem` other spellings keep their order among themselves: it must be
/// their rank already (a record's, to which only the stem's count was
/// added).
pub fn put_entry(
    out: &mut Vec<u8>,
    df: u32,
    forms: &mut Vec<(Spelling<'_>, u32)>,
    stem: Option<&[u8]>,
) {
    fold_repeats(forms, stem);
    forms.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.rank(&b.0, stem)));
    forms.truncate(if df == 0 { 0 } else { FORMS_KEPT });
    let head = u64::from(df) << 2;
    match forms[..] {
        [] => put_varint(out, head | NO_SPELLING),
        [(Spelling::Stem, count)] if count == df => put_varint(out, head | STEM_ONLY),
        [(other, count)] if count == df => {
            put_varint(out, head | OTHER_ONLY);
            other.put(out);
        }
        _ => {
            put_varint(out, head | LISTED);
            put_varint(out, forms.len() as u64);
            for (spelling, count) in forms.iter() {
                let other = u64::from(*spelling != Spelling::Stem);
                put_varint(out, u64::from(*count) << 1 | other);
                spelling.put(out);
            }
        }
    }
}

/// Lists longer than this are folded by a sort; shorter ones by a scan.
const FOLD_BY_SCAN: usize = 16;

/// Adds each repeated spelling's count to its first, keeping the order
/// of the rest (without the stem, their rank). A crawl's list is a
/// handful (a word's kept spellings and a transaction's), and a scan
/// folds it without comparing bytes for an order: the sort that brought
/// repeats together, run for a third of the vocabulary every transaction,
/// was 40% of the writer's `memcmp`. A long list is sorted (stably), which
/// a scan would make quadratic.
fn fold_repeats(forms: &mut Vec<(Spelling<'_>, u32)>, stem: Option<&[u8]>) {
    if forms.len() > FOLD_BY_SCAN {
        forms.sort_by(|a, b| a.0.rank(&b.0, stem));
        forms.dedup_by(|later, first| {
            let same = later.0 == first.0;
            if same {
                first.1 = first.1.saturating_add(later.1);
            }
            same
        });
        return;
    }
    let mut i = 0;
    while i < forms.len() {
        let (spelling, count) = forms[i];
        match forms[..i].iter_mut().find(|f| f.0 == spelling) {
            Some(first) => {
                first.1 = first.1.saturating_add(count);
                forms.remove(i);
            }
            None => i += 1,
        }
    }
}

/// Writes into `out` the record `old` (empty: none yet) with `changes`
/// applied, given as (word id, change) in id order, every id within the
/// record's block. Unchanged entries are copied as they are.
pub fn rewrite_block<'v>(
    old: &[u8],
    changes: impl Iterator<Item = (WordId, Change<'v>)>,
    out: &mut Vec<u8>,
) -> Result<()> {
    out.clear();
    let mut entries = Entries::new(old);
    let mut at = 0;
    let mut forms = Vec::with_capacity(FORMS_KEPT + 4);
    for (id, change) in changes {
        let want = slot(id);
        if want < at {
            return Err(StoreError::corrupt("doc_freq changes out of id order"));
        }
        while at < want {
            match entries.next_entry()? {
                Some((_, bytes)) => out.extend_from_slice(bytes),
                None => out.push(0),
            }
            at += 1;
        }
        let entry = entries.next_entry()?.map(|(e, _)| e).unwrap_or_default();
        at += 1;
        forms.clear();
        for form in entry.forms() {
            forms.push(form?);
        }
        if change.stem_votes > 0 {
            forms.push((Spelling::Stem, change.stem_votes));
        }
        // Other spellings are ranked by their bytes, which takes the stem:
        // the pages that wrote one brought it.
        let stem = (!change.votes.is_empty()).then_some(change.stem.as_bytes());
        let stem_bytes = change.stem.as_bytes();
        forms.extend(
            (change.votes.iter()).map(|&(f, n)| (Spelling::of(stem_bytes, f.as_bytes()), n)),
        );
        let df = (i64::from(entry.df) + i64::from(change.df)).max(0);
        put_entry(out, u32::try_from(df).unwrap_or(u32::MAX), &mut forms, stem);
    }
    while let Some((_, bytes)) = entries.next_entry()? {
        out.extend_from_slice(bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEM: &[u8] = b"movi";

    fn other(written: &'static str) -> Spelling<'static> {
        Spelling::of(STEM, written.as_bytes())
    }

    fn decoded(block: &[u8], id: WordId) -> (u32, Vec<(Spelling<'_>, u32)>) {
        let e = entry_of(block, id).unwrap();
        (e.df, e.forms().collect::<Result<_>>().unwrap())
    }

    fn change<'v>(df: i32, stem_votes: u32, votes: &'v [(&'v str, u32)]) -> Change<'v> {
        Change {
            df,
            stem_votes,
            votes,
            stem: "movi",
        }
    }

    /// Entries of each kind, written and read back: the spellings as
    /// written (given the stem), their counts, and the entry's bytes.
    #[test]
    fn entries_read_back_as_written_in_the_bytes_said() {
        type Case = (
            &'static str,
            u32,
            &'static [(Option<&'static str>, u32)],
            usize,
        );
        let cases: &[Case] = &[
            // No page holds it.
            ("movi", 0, &[], 1),
            // Title pages only: counted, no spelling.
            ("movi", 4, &[], 1),
            // The stem, on every page: the header alone.
            ("movi", 7, &[(None, 7)], 1),
            // One other spelling on every page: four bytes of the stem
            // shared, "es" added.
            ("movi", 7, &[(Some("movies"), 7)], 4),
            // Shares nothing with its stem.
            ("go", 2, &[(Some("went"), 2)], 6),
            // Non-ASCII, the two parting inside a character.
            ("caf\u{e9}", 3, &[(Some("caf\u{e8}s"), 3)], 4),
            // Written as the stem on fewer pages than hold the word.
            ("movi", 9, &[(None, 5)], 3),
            // A count of 0 (a word held by title pages only, once voted).
            ("movi", 9, &[(Some("movies"), 0)], 6),
            // Several, most written first, and counts past a byte.
            (
                "movi",
                300,
                &[(Some("movies"), 200), (None, 90), (Some("movie"), 10)],
                13,
            ),
            // df past the one-byte header.
            ("movi", 1000, &[(None, 1000)], 2),
        ];
        for &(stem, df, forms, bytes) in cases {
            let mut list: Vec<(Spelling<'_>, u32)> = (forms.iter())
                .map(|&(w, n)| {
                    let s = w.map_or(Spelling::Stem, |w| {
                        Spelling::of(stem.as_bytes(), w.as_bytes())
                    });
                    (s, n)
                })
                .collect();
            let mut out = Vec::new();
            put_entry(&mut out, df, &mut list, Some(stem.as_bytes()));
            assert_eq!(out.len(), bytes, "{stem} {df} {forms:?}");
            let (got_df, got) = decoded(&out, 0);
            let written: Vec<(Option<String>, u32)> = (got.iter())
                .map(|(s, n)| {
                    let w = match s {
                        Spelling::Stem => None,
                        s => Some(String::from_utf8(s.written(stem.as_bytes()).unwrap()).unwrap()),
                    };
                    (w, *n)
                })
                .collect();
            let want: Vec<(Option<String>, u32)> = forms
                .iter()
                .map(|&(w, n)| (w.map(String::from), n))
                .collect();
            assert_eq!((got_df, written), (df, want), "{stem} {df}");
            // A record of this entry after an empty one: each found whole.
            let mut record = vec![0];
            record.extend_from_slice(&out);
            assert_eq!(decoded(&record, 1).0, df);
            assert_eq!(decoded(&record, 2), (0, vec![]), "past the record's end");
        }
    }

    #[test]
    fn a_block_keeps_each_words_count_and_most_written_spellings() {
        let mut first = Vec::new();
        let votes = [("movies", 3), ("movie", 1)];
        rewrite_block(
            &[],
            [(66, change(7, 0, &votes[..]))].into_iter(),
            &mut first,
        )
        .unwrap();
        // Ids before the changed one get empty entries (one byte each).
        assert_eq!(decoded(&first, 64), (0, vec![]));
        assert_eq!(decoded(&first, 67), (0, vec![]), "past the record's end");
        let mut block = Vec::new();
        let votes = [("movie", 1), ("moving", 1)];
        let changes = [(65, change(2, 0, &[])), (66, change(1, 1, &votes[..]))];
        rewrite_block(&first, changes.into_iter(), &mut block).unwrap();
        assert_eq!(
            decoded(&block, 66),
            (
                8,
                vec![
                    (other("movies"), 3),
                    (other("movie"), 2),
                    (Spelling::Stem, 1)
                ]
            ),
            "most votes first, the stem first among ties, three kept"
        );
        assert_eq!(decoded(&block, 65), (2, vec![]));
        // Only the stem's votes: the others keep their rank, unread.
        let mut stem_only = Vec::new();
        let changes = [(66, change(3, 3, &[]))];
        rewrite_block(&block, changes.into_iter(), &mut stem_only).unwrap();
        assert_eq!(
            decoded(&stem_only, 66),
            (
                11,
                vec![
                    (Spelling::Stem, 4),
                    (other("movies"), 3),
                    (other("movie"), 2)
                ]
            )
        );
        // A word no page holds any more drops its spellings.
        let mut gone = Vec::new();
        rewrite_block(&block, [(66, change(-8, 0, &[]))].into_iter(), &mut gone).unwrap();
        assert_eq!(decoded(&gone, 66), (0, vec![]));
        assert_eq!(decoded(&gone, 65), (2, vec![]), "the others stand");
    }

    #[test]
    fn repeated_spellings_add_up_in_short_and_long_lists() {
        for extra in [0, FOLD_BY_SCAN] {
            let others: Vec<String> = (0..extra).map(|i| format!("w{i:02}")).collect();
            let mut forms: Vec<(Spelling<'_>, u32)> = vec![
                (other("runs"), 1),
                (Spelling::Stem, 2),
                (other("running"), 2),
                (other("runs"), 3),
                (Spelling::Stem, 1),
            ];
            forms.extend(others.iter().map(|o| (Spelling::of(STEM, o.as_bytes()), 1)));
            let mut out = Vec::new();
            put_entry(&mut out, 9, &mut forms, Some(STEM));
            assert_eq!(
                decoded(&out, 0),
                (
                    9,
                    vec![
                        (other("runs"), 4),
                        (Spelling::Stem, 3),
                        (other("running"), 2)
                    ]
                ),
                "with {extra} other spellings"
            );
        }
    }

    #[test]
    fn changes_out_of_order_or_truncated_records_are_errors() {
        let change = change(1, 1, &[]);
        let mut out = Vec::new();
        let changes = [(3, change), (2, change)];
        assert!(rewrite_block(&[], changes.into_iter(), &mut out).is_err());
        // An entry of one other spelling without it; a listed one
        // claiming a spelling it does not have.
        assert!(entry_of(&[0b110], 0).is_err());
        assert!(entry_of(&[0b111, 1], 0).is_err());
        assert!(each_entry(0, &[0x87], |_, _| Ok(())).is_err());
    }
}
