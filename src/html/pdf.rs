//! A PDF body turned into a [`Document`]: its text (every page's, in page
//! order) and its title from the document information dictionary (`Info`
//! `/Title`), through `pdf-extract` (on `lopdf`). A PDF that cannot be
//! read is a named reason, never a failure of the crawl: the parser
//! returns an empty document and the reason, and the body is kept as it
//! came.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use pdf_extract::{Document as Pdf, Object, PlainTextOutput};

use super::{Document, MAX_TITLE_CHARS};

/// Text kept of one PDF: the extractor has no time or memory bound of its
/// own, so pages stop being read once this much text is out (a search
/// index gains little from the 500th page of a manual).
pub const MAX_PDF_TEXT_BYTES: usize = 4 << 20;

/// Pages read of one PDF, for the same reason.
pub const MAX_PDF_PAGES: usize = 2_000;

/// The text and title of a PDF body, or why they cannot be had.
/// `truncated`: the body was cut at `--max-body-bytes`, and a PDF's
/// cross-reference table is at its end, so a cut PDF cannot be read.
pub fn parse_pdf(body: &[u8], truncated: bool) -> Result<Document, String> {
    if truncated {
        return Err("truncated: the body was cut at --max-body-bytes".into());
    }
    quiet_panics_here();
    IN_EXTRACTOR.with(|c| c.set(true));
    let got = panic::catch_unwind(AssertUnwindSafe(|| extract(body)));
    IN_EXTRACTOR.with(|c| c.set(false));
    match got {
        Ok(r) => r,
        Err(payload) => Err(format!("extractor failed: {}", panic_text(&*payload))),
    }
}

fn extract(body: &[u8]) -> Result<Document, String> {
    let mut pdf = Pdf::load_mem(body).map_err(|e| format!("unreadable: {e}"))?;
    if pdf.is_encrypted() {
        // Most "encrypted" PDFs on the web only restrict printing: their
        // user password is empty.
        pdf.decrypt("").map_err(|e| format!("encrypted: {e}"))?;
    }
    let mut text = String::new();
    for &page in pdf.get_pages().keys().take(MAX_PDF_PAGES) {
        let mut page_text = String::new();
        pdf_extract::output_doc_page(&pdf, &mut PlainTextOutput::new(&mut page_text), page)
            .map_err(|e| format!("unreadable text: {e}"))?;
        text.push_str(&page_text);
        if text.len() >= MAX_PDF_TEXT_BYTES {
            break;
        }
    }
    Ok(Document {
        title: title(&pdf),
        text,
        ..Document::default()
    })
}

/// `Info /Title`, when it is a non-blank text string.
fn title(pdf: &Pdf) -> Option<String> {
    let info = pdf.trailer.get_deref(b"Info", pdf).ok()?.as_dict().ok()?;
    let raw: &Object = info.get_deref(b"Title", pdf).ok()?;
    let t = pdf_extract::decode_text_string(raw).ok()?;
    let t = super::collapse_whitespace(t.trim());
    (!t.is_empty()).then(|| t.chars().take(MAX_TITLE_CHARS).collect())
}

thread_local! {
    /// Set while this thread runs the extractor, whose panics are caught
    /// and reported as a page's reason.
    static IN_EXTRACTOR: Cell<bool> = const { Cell::new(false) };
}

/// Keeps a caught extractor panic off stderr and away from other hooks
/// (the console's restores the terminal on any panic, which would tear
/// down a running console for a bad PDF). Installed on first use, so it
/// wraps whatever hook is in place then and defers to it for every other
/// panic.
fn quiet_panics_here() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !IN_EXTRACTOR.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panicked".into());
    text.chars().take(200).collect()
}

/// The PDFs the integration tests serve, written by the same hand.
#[cfg(test)]
#[path = "../../tests/it/support/pdf.rs"]
mod test_pdf;

#[cfg(test)]
mod tests {
    use super::test_pdf::minimal_pdf;
    use super::*;

    #[test]
    fn text_and_title_come_out_and_bad_input_is_a_reason() {
        let doc = parse_pdf(&minimal_pdf("Annual Report", "quokka habitats"), false).unwrap();
        assert_eq!(doc.title.as_deref(), Some("Annual Report"));
        assert!(doc.text.contains("quokka habitats"), "{:?}", doc.text);

        let untitled = parse_pdf(&minimal_pdf("", "plain words"), false).unwrap();
        assert_eq!(untitled.title, None);

        let broken = parse_pdf(b"%PDF-1.4\nnot really a pdf", false).unwrap_err();
        assert!(broken.starts_with("unreadable"), "{broken}");
        let cut = parse_pdf(&minimal_pdf("T", "words"), true).unwrap_err();
        assert!(cut.starts_with("truncated"), "{cut}");
    }
}
