//! Small PDFs written by hand for the tests: one page that shows `text`
//! with a `Tj` operator in Helvetica, and an `Info` dictionary with
//! `title` (none when empty), with a correct cross-reference table.

/// A one-page PDF; `text` and `title` must not hold `(`, `)` or `\`.
pub fn minimal_pdf(title: &str, text: &str) -> Vec<u8> {
    pdf_of(title, &format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET"))
}

/// A one-page PDF whose page's content stream is `content`, font F1
/// being Helvetica.
pub fn pdf_of(title: &str, content: &str) -> Vec<u8> {
    let info = if title.is_empty() {
        "<< /Producer (crawlscope tests) >>".to_string()
    } else {
        format!("<< /Title ({title}) >>")
    };
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
         /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
            .to_string(),
        format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
        info,
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n", objects.len() + 1).as_bytes());
    out.extend_from_slice(b"0000000000 65535 f \n");
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}
