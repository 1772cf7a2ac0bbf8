//! A near-duplicate pair in the Findings pane: counted, and listed as its
//! first page (`a`, the one Enter opens in the graph) with the other and
//! the similarity in words.

use crate::index::minhash::signature_of;
use crate::search::test_store;
use crate::store::prelude::*;
use crate::store::{Decision, PageText, PointMark, PointRecord, RunEnd, RunRecord, UrlState};
use crate::tui::findings_jobs;

#[test]
fn a_near_duplicate_row_names_and_opens_its_first_page() {
    let words: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
    let mut changed = words.clone();
    changed[150] = "other".into();
    let (_dir, store, ids) = test_store::store(&[("A", "a"), ("B", "b")]);
    store
        .update(|w| {
            // Reports answer for a point's latest run: the pages are its.
            let point = w.add_point(&PointRecord::default())?;
            w.add_run(&RunRecord {
                point,
                gen: 0,
                started_at: 1,
                ended_at: Some(2),
                ended: RunEnd::Finished,
                crawlers: Vec::new(),
                flags: Default::default(),
                counts: Default::default(),
                running_ms: 0,
                ran_to_ms: 0,
            })?;
            for (&id, text) in ids.iter().zip([&words, &changed]) {
                w.set_state(id, &UrlState::Done { point, gen: 0 })?;
                // What the point's run decided: the reports read it.
                let mark = PointMark {
                    gen: 0,
                    decision: Decision::Settled,
                    depth: 0,
                };
                w.put_point_mark(point, id, mark)?;
                // Different bodies: an identical pair is `duplicates`'.
                let mut rec = w.page(id)?.expect("a page record");
                rec.content_hash = u64::from(id);
                w.put_page_record(id, &rec)?;
                let signature = signature_of(text.iter().map(String::as_str));
                w.put_page_text(
                    id,
                    &PageText {
                        signature,
                        text_error: None,
                    },
                )?;
            }
            Ok(())
        })
        .expect("write the signatures");
    let counts = findings_jobs::counts(&store).expect("counts");
    assert!(
        counts.kinds.contains(&("near-duplicates", 1)),
        "{:?}",
        counts.kinds
    );
    let listed = findings_jobs::list(&store, "near-duplicates").expect("rows");
    assert_eq!(listed.rows.len(), 1, "{listed:?}");
    let row = &listed.rows[0];
    assert_eq!((row.page, row.url.as_str()), (ids[0], "http://t.test/0"));
    assert!(
        row.issue
            .starts_with("b: http://t.test/1 · similarity: 0.9"),
        "{row:?}"
    );
}
