//! Tests of the posting streams: parts and runs read back as written,
//! lying bytes refused, and merges by runs equal to merges entry by entry.

use crate::codec::{self, put_varint};
use crate::schema::{PageId, WordId, LEAF_VALUE_BYTES};
use crate::Result;

use super::merge::{merge_parts, part_without, RAW_RUN_BYTES};
use super::part_writer::{PartWriter, RUN_ENTRIES};
use super::pending::{pending_entries, pending_without_page, push_entry};
use super::run::{entries, part_key, runs, Entry, Part};

type Row = (WordId, PageId, u32, Vec<u32>);

fn decode(key: &[u8], part: &[u8]) -> Vec<Row> {
    let (_, word, _) = codec::split_triple_key(key).unwrap();
    let mut out = Vec::new();
    for run in runs(word, part) {
        let run = run.unwrap();
        for e in run.entries() {
            let e = e.unwrap();
            out.push((run.word, e.page, e.tf, e.positions().unwrap()));
        }
    }
    out
}

fn decode_all(parts: &[Part]) -> Vec<Row> {
    parts.iter().flat_map(|(k, p)| decode(k, p)).collect()
}

fn first_of(key: &[u8]) -> (WordId, PageId) {
    let (_, w, p) = codec::split_triple_key(key).unwrap();
    (w, p)
}

#[test]
fn words_share_parts_in_word_then_page_order() {
    let mut writer = PartWriter::new(7);
    let mut alpha = Vec::new();
    push_entry(&mut alpha, 300_000, &[0]);
    push_entry(&mut alpha, 7, &[1, 5, 9]);
    let mut beta = Vec::new();
    push_entry(&mut beta, 9, &[2, 3]);
    writer.push_block(4, &alpha, false).unwrap();
    writer.push_block(90, &beta, true).unwrap();
    let parts = writer.finish();
    assert_eq!(parts.len(), 1, "two rare words, one part");
    assert_eq!(parts[0].0, part_key(7, 4, 7), "keyed by its first entry");
    let rows = vec![
        (4, 7, 3, vec![1, 5, 9]),
        (4, 300_000, 1, vec![0]),
        (90, 9, 2, vec![2, 3]),
    ];
    assert_eq!(decode_all(&parts), rows);
    // Without its first entry the part is keyed by the next one.
    let (k, p) = &parts[0];
    let rest = part_without(k, p, 4, 7).unwrap().unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(first_of(&rest[0].0), (4, 300_000));
    assert_eq!(decode_all(&rest), rows[1..].to_vec());
    assert!(part_without(k, p, 90, 7).unwrap().is_none(), "not there");
    let only = part_without(&rest[0].0, &rest[0].1, 4, 300_000)
        .unwrap()
        .unwrap();
    let last = part_without(&only[0].0, &only[0].1, 90, 9)
        .unwrap()
        .unwrap();
    assert!(last.is_empty(), "an emptied part is dropped");
    let pending = pending_without_page(&alpha, 7).unwrap();
    let pages: Vec<PageId> = pending_entries(&pending).map(|e| e.unwrap().page).collect();
    assert_eq!(pages, vec![300_000]);
}

#[test]
fn a_long_run_is_cut_below_the_overflow_size_and_carried_on() {
    let mut writer = PartWriter::new(1);
    let positions: Vec<u32> = (0..50).map(|i| i * 3).collect();
    let mut short = Vec::new();
    push_entry(&mut short, 5, &[1]);
    writer.push_block(2, &short, true).unwrap();
    let mut long = Vec::new();
    for page in (0..400u32).rev() {
        push_entry(&mut long, page * 2, &positions);
    }
    writer.push_block(3, &long, false).unwrap();
    writer.push_block(8, &short, true).unwrap();
    let parts = writer.finish();
    assert!(parts.len() > 1);
    assert!(parts.iter().all(|(_, p)| p.len() <= LEAF_VALUE_BYTES));
    for (k, p) in &parts {
        let rows = decode(k, p);
        assert_eq!((rows[0].0, rows[0].1), first_of(k));
    }
    assert_eq!(
        first_of(&parts[1].0).0,
        3,
        "the run goes on in the next part"
    );
    let rows = decode_all(&parts);
    let mut want = vec![(2, 5, 1, vec![1])];
    want.extend((0..400u32).map(|p| (3, p * 2, 50, positions.clone())));
    want.push((8, 5, 1, vec![1]));
    assert_eq!(rows, want);
}

#[test]
fn later_entries_cost_bits_not_bytes() {
    let mut b = Vec::new();
    for page in 0..10 {
        push_entry(&mut b, page, &[page + 3]);
    }
    push_entry(&mut b, 10, &[1, 2]);
    let mut writer = PartWriter::new(0);
    writer.push_block(1, &b, true).unwrap();
    let parts = writer.finish();
    // The run's head (word delta, length: 2 bytes), its weight class
    // (1). Its first entry in bytes (page, position: 2). Count with the several flag, the
    // lists' length, the parameter byte (3). Bits: nine gaps of 0 at
    // k 0 (10), the flags (10), positions 4..=12 at k 3 (41), the
    // gamma code of tf - 1 (1): 62 bits in 8 bytes. The list's two
    // deltas (2). The byte layout took 27.
    assert_eq!(parts[0].1.len(), 2 + 1 + 2 + 3 + 8 + 2);
    let rows = decode_all(&parts);
    assert_eq!(rows[4], (1, 4, 1, vec![7]));
    assert_eq!(rows[10], (1, 10, 2, vec![1, 2]));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Entries of any gaps (to the top of the page ids), tfs and
    /// positions read back as written, in parts that fit a leaf.
    #[test]
    fn any_entries_read_back_from_parts_that_fit(
        rows in proptest::collection::vec(
            (0u32..3, proptest::prelude::any::<u32>(),
             proptest::collection::vec(0u32..100_000, 1..30)), 1..400),
    ) {
        let mut want: Vec<Row> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (word, page, mut positions) in rows {
            positions.sort_unstable();
            positions.dedup();
            if seen.insert((word, page)) {
                want.push((word, page, positions.len() as u32, positions));
            }
        }
        want.sort_unstable_by_key(|r| (r.0, r.1));
        let mut writer = PartWriter::new(3);
        for (word, page, _, positions) in &want {
            writer.push_positions(*word, *page, positions, 0).unwrap();
        }
        let parts = writer.finish();
        proptest::prop_assert!(parts.iter().all(|(_, p)| p.len() <= LEAF_VALUE_BYTES));
        proptest::prop_assert_eq!(decode_all(&parts), want);
    }
}

#[test]
fn a_lying_bit_coded_run_is_an_error_not_a_panic() {
    let mut b = Vec::new();
    push_entry(&mut b, 7, &[1]);
    push_entry(&mut b, 9, &[2, 5]);
    let mut writer = PartWriter::new(0);
    writer.push_block(1, &b, true).unwrap();
    let parts = writer.finish();
    let run = runs(1, &parts[0].1).next().unwrap().unwrap().bytes.to_vec();
    assert_eq!(entries(&run).count(), 2);
    // The weight class (0: not a body stream), the first entry (page 7,
    // position 1), then: a span of 2 pages with the several flag, the
    // lists' length, parameters, bits, lists.
    assert_eq!(&run[..4], &[0, 14, 1, 5]);
    let lie = |at: usize, byte: u8| {
        let mut bad = run.clone();
        bad[at] = byte;
        entries(&bad).collect::<Result<Vec<_>>>().is_err()
    };
    assert!(lie(3, 1), "a span of no pages");
    assert!(lie(3, 3), "a span that ends before the last entry");
    assert!(lie(3, 7), "a span that ends after it");
    assert!(lie(4, 40), "lists longer than the run");
    assert!(lie(4, 1), "a list shorter than its tf");
    let mut longer = run.clone();
    longer.push(0);
    assert!(entries(&longer).collect::<Result<Vec<_>>>().is_err());
    // A gap past the last page id.
    let mut top = vec![0];
    put_varint(&mut top, u64::from(u32::MAX) << 1);
    put_varint(&mut top, 0);
    top.extend_from_slice(&[2, 0, 0x80]);
    assert!(entries(&top).any(|e| e.is_err()));
}

#[test]
fn a_part_reads_the_same_with_either_head_spelling() {
    // (word delta, run length): the first run's delta is 0; a word next
    // to the last; lengths either side of a one-byte varint; far words.
    let heads: [(WordId, usize); 6] = [(0, 3), (1, 1), (1, 63), (1, 64), (2, 200), (300, 5)];
    let (mut today, mut before) = (Vec::new(), Vec::new());
    let mut expected = Vec::new();
    let mut word = 7;
    for (i, &(delta, len)) in heads.iter().enumerate() {
        word += delta;
        let run: Vec<u8> = (0..len).map(|b| (b + i) as u8).collect();
        super::run::put_head(&mut today, delta, len);
        today.extend_from_slice(&run);
        put_varint(&mut before, u64::from(delta));
        put_varint(&mut before, len as u64);
        before.extend_from_slice(&run);
        expected.push((word, run));
    }
    // Today's heads: a byte for each run of the next word below 64 bytes.
    assert_eq!(today.len() + 2, before.len());
    assert_ne!(today[0], 0, "today's first byte is never an old part's");
    for part in [&today, &before] {
        let read: Vec<(WordId, Vec<u8>)> = runs(7, part)
            .map(|r| r.map(|r| (r.word, r.bytes.to_vec())).unwrap())
            .collect();
        assert_eq!(read, expected);
    }
}

#[test]
fn a_lying_part_is_an_error_not_a_panic() {
    let bad = [5u8, 2, 200, 1];
    // The same bytes as a run, after its weight class.
    assert!(entries(&[0, 5, 2, 200, 1]).any(|e| e.is_err()));
    // A run longer than its part, an empty run.
    assert!(runs(1, &[0, 9, 1]).any(|r| r.is_err()));
    assert!(runs(1, &[0, 0]).any(|r| r.is_err()));
    let key = part_key(0, 1, 0);
    assert!(part_without(&key, &[0, 5, 0, 5, 2, 200, 1], 1, 0).is_err());
    assert!(PartWriter::new(0).push_block(1, &bad, false).is_err());
    assert!(PartWriter::new(0).push_block(1, &bad, true).is_err());
    // Entries out of (word, page) order: a corrupt source, refused.
    let mut one = Vec::new();
    push_entry(&mut one, 4, &[1]);
    let mut w = PartWriter::new(0);
    w.push_block(5, &one, true).unwrap();
    assert!(w.push_block(5, &one, true).is_err(), "the same page again");
    assert!(w.push_block(2, &one, false).is_err(), "an earlier word");
    // A block said to ascend that does not: refused, not written
    // out of order.
    let mut down = Vec::new();
    push_entry(&mut down, 9, &[1]);
    push_entry(&mut down, 3, &[1]);
    assert!(PartWriter::new(0).push_block(1, &down, true).is_err());
    assert!(PartWriter::new(0).push_block(1, &down, false).is_ok());
}

/// Each segment's parts for `(word, page, tf)` rows, positions made
/// up from the page and tf.
fn segment_parts(segment: u32, rows: &[(WordId, PageId, u32)]) -> Vec<Part> {
    let mut rows = rows.to_vec();
    rows.sort_unstable();
    let mut writer = PartWriter::new(segment);
    for group in rows.chunk_by(|a, b| a.0 == b.0) {
        let mut block = Vec::new();
        for &(_, page, tf) in group {
            let positions: Vec<u32> = (0..tf).map(|i| page % 7 + i * 3).collect();
            push_entry(&mut block, page, &positions);
        }
        writer.push_block(group[0].0, &block, true).unwrap();
    }
    writer.finish()
}

/// What a merge did before [`RunMerger`], entry by entry: decode all,
/// sort, encode again.
fn merged_entry_by_entry(segments: &[Vec<Part>]) -> Result<Vec<Part>> {
    let mut rows: Vec<(WordId, Entry<'_>)> = Vec::new();
    for (k, p) in segments.iter().flatten() {
        let (_, word, _) = codec::split_triple_key(k)?;
        for run in runs(word, p) {
            let run = run?;
            for e in run.entries() {
                rows.push((run.word, e?));
            }
        }
    }
    rows.sort_by_key(|(w, e)| (*w, e.page));
    let mut out = PartWriter::new(99);
    for (w, e) in &rows {
        out.push(*w, e)?;
    }
    Ok(out.finish())
}

fn merged_by_runs(segments: &[Vec<Part>]) -> Result<Vec<Part>> {
    let mut parts = Vec::new();
    for (k, p) in segments.iter().flatten() {
        parts.push((codec::split_triple_key(k)?.1, p.as_slice()));
    }
    let mut out = PartWriter::new(99);
    merge_parts(&mut out, parts.into_iter(), |_| true)?;
    Ok(out.finish())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Segments whose pages interleave a little (a late page) or a lot,
    /// long runs cut across parts among them: merging by runs (long
    /// runs copied whole) writes the entries that merging entry by
    /// entry wrote, in parts that fit a leaf and begin at their key.
    #[test]
    fn merging_by_runs_writes_what_merging_entry_by_entry_wrote(
        pages in proptest::collection::vec(
            (0u32..4, 0u32..3_000, 1u32..40, 0usize..4), 1..300),
    ) {
        let mut seen = std::collections::HashSet::new();
        let mut segments: Vec<Vec<(WordId, PageId, u32)>> = vec![Vec::new(); 4];
        for (word, page, tf, segment) in pages {
            // Pages mostly in the segment of their range, some late.
            let segment = if segment == 0 { (page / 800) as usize } else { segment };
            if seen.insert((word, page)) {
                segments[segment].push((word * 5, page, if tf > 30 { tf * 4 } else { tf % 3 + 1 }));
            }
        }
        let parts: Vec<Vec<Part>> = segments
            .iter()
            .enumerate()
            .map(|(i, rows)| segment_parts(i as u32, rows))
            .collect();
        let want = merged_entry_by_entry(&parts).unwrap();
        let got = merged_by_runs(&parts).unwrap();
        proptest::prop_assert!(got.iter().all(|(_, p)| p.len() <= LEAF_VALUE_BYTES));
        for (k, p) in &got {
            let rows = decode(k, p);
            proptest::prop_assert_eq!((rows[0].0, rows[0].1), first_of(k));
        }
        proptest::prop_assert_eq!(decode_all(&got), decode_all(&want));
    }
}

#[test]
fn a_merge_copies_a_long_run_no_other_interleaves_as_it_is() {
    let early: Vec<(WordId, PageId, u32)> = (0..200).map(|p| (4, p * 3, 3)).collect();
    let late: Vec<(WordId, PageId, u32)> = (0..200).map(|p| (4, 1_000 + p, 2)).collect();
    let short = [(4, 5_000, 1), (9, 7, 1)];
    let segments = [
        segment_parts(0, &early),
        segment_parts(1, &late),
        segment_parts(2, &short),
    ];
    let got = merged_by_runs(&segments).unwrap();
    let want = merged_entry_by_entry(&segments).unwrap();
    assert_eq!(decode_all(&got), decode_all(&want));
    let copied: Vec<&[u8]> = got
        .iter()
        .flat_map(|(k, p)| runs(first_of(k).0, p).map(|r| r.unwrap().bytes))
        .collect();
    for (_, part) in segments[..2].iter().flatten() {
        // 200 entries: two runs, both long.
        for run in runs(4, part) {
            let run = run.unwrap().bytes;
            assert!(run.len() >= RAW_RUN_BYTES);
            assert!(copied.contains(&run), "a long run copied as it was");
        }
    }
    // The short runs' entries were coded again: one run of word 4,
    // one of word 9.
    assert_eq!(copied.len(), 6);
}

#[test]
fn runs_are_cut_to_run_entries_and_found_across_them() {
    // Lone positions, then lists whose entries a look-up passes over.
    let rows: Vec<(WordId, PageId, u32)> = (0..300).map(|p| (6, p * 2, 1 + p % 3)).collect();
    let parts = segment_parts(0, &rows);
    let lens: Vec<usize> = parts
        .iter()
        .flat_map(|(k, p)| runs(first_of(k).0, p).map(|r| r.unwrap().entries().count()))
        .collect();
    assert_eq!(lens, [RUN_ENTRIES, RUN_ENTRIES, 300 - 2 * RUN_ENTRIES]);
    let all = decode_all(&parts);
    for page in 0..600 {
        let found = parts.iter().find_map(|(k, p)| {
            runs(first_of(k).0, p)
                .find_map(|r| r.unwrap().entries().find(page).unwrap())
                .map(|e| (e.page, e.positions().unwrap()))
        });
        let want = all
            .iter()
            .find(|row| row.1 == page)
            .map(|row| (row.1, row.3.clone()));
        assert_eq!(found, want, "page {page}");
    }
    // Pages asked of every run in turn: absent ones, ones in the
    // first entry, lists passed and taken, pages past the last run.
    let asked: Vec<PageId> = (0..700).filter(|p| p % 3 == 0 || p % 7 == 0).collect();
    let mut next = 0;
    let mut got = Vec::new();
    for (k, p) in &parts {
        for run in runs(first_of(k).0, p) {
            run.unwrap()
                .entries()
                .at_pages(&asked, &mut next, |e| {
                    got.push((e.page, e.positions().unwrap()))
                })
                .unwrap();
        }
    }
    let want: Vec<(PageId, Vec<u32>)> = all
        .iter()
        .filter(|row| asked.contains(&row.1))
        .map(|row| (row.1, row.3.clone()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(next, asked.partition_point(|&p| p <= 598));
}

#[test]
fn a_page_in_two_merged_runs_is_corrupt() {
    let one = segment_parts(0, &[(3, 10, 1), (3, 20, 2)]);
    let two = segment_parts(1, &[(3, 15, 1), (3, 20, 1)]);
    assert!(merged_by_runs(&[one.clone(), two]).is_err());
    assert!(merged_by_runs(&[one]).is_ok());
}

#[test]
fn a_weight_class_bounds_its_weight_closely() {
    use super::run::{class_bound, weight_class, UNBOUNDED};
    let mut w = 1e-6f32;
    while w <= 1.5 {
        let bound = class_bound(weight_class(w));
        assert!(bound >= f64::from(w), "{w}: {bound}");
        assert!(
            bound <= f64::from(w) * 1.045 || weight_class(w) == 0,
            "{w}: {bound}"
        );
        w *= 1.0137;
    }
    assert_eq!(weight_class(0.0), 0);
    assert_eq!(weight_class(f32::NAN), UNBOUNDED);
    assert_eq!(class_bound(UNBOUNDED), f64::INFINITY);
    assert!(
        class_bound(weight_class(1.0)) < 1.001,
        "one is a class's bound"
    );
}
