//! How wide a title or description is drawn in search results, in pixels:
//! the advance widths of Helvetica (Adobe's public AFM, per 1000 em), with
//! which Arial, the sans-serif results are set in, is metric-compatible.
//! Titles are measured at 20 px and descriptions at 14 px, the sizes
//! search results use; a title is cut near 561 px and a description near
//! 985 px (Screaming Frog's limits).

/// The font size titles are set in, in pixels.
pub const TITLE_FONT_PX: u32 = 20;
/// The font size descriptions are set in, in pixels.
pub const DESCRIPTION_FONT_PX: u32 = 14;

/// Advance widths of U+0020..=U+007E, per 1000 em.
const ASCII: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278,
    278, // space - /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0 - 9
    278, 278, 584, 584, 584, 556, 1015, // : - @
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A - M
    722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N - Z
    278, 278, 278, 469, 556, 333, // [ - `
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a - m
    556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n - z
    334, 260, 334, 584, // { - ~
];

/// Advance widths of U+00A0..=U+00FF (Latin-1), per 1000 em; the no-break
/// space is a space and the soft hyphen a hyphen.
const LATIN1: [u16; 96] = [
    278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333, // A0 - AF
    400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611, // B0 - BF
    667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278,
    278, // C0 - CF
    722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611, // D0 - DF
    556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278, // E0 - EF
    556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500, // F0 - FF
];

/// Any other character: a lowercase letter's width (556, that of most of
/// them and of the digits), a full em for the wide characters of East
/// Asian scripts, nothing for combining marks and controls.
const FALLBACK: u16 = 556;
const WIDE: u16 = 1000;

fn advance(c: char) -> u16 {
    let u = c as u32;
    match u {
        0x20..=0x7e => ASCII[(u - 0x20) as usize],
        0xa0..=0xff => LATIN1[(u - 0xa0) as usize],
        0x00..=0x1f | 0x7f..=0x9f | 0x0300..=0x036f | 0x200b..=0x200f => 0,
        0x1100..=0x115f
        | 0x2e80..=0xa4cf
        | 0xac00..=0xd7a3
        | 0xf900..=0xfaff
        | 0xfe30..=0xfe4f
        | 0xff00..=0xff60
        | 0xffe0..=0xffe6
        | 0x20000..=0x3fffd => WIDE,
        _ => FALLBACK,
    }
}

/// The width of `text` set at `font_px` pixels, rounded to the nearest
/// pixel.
pub fn width_px(text: &str, font_px: u32) -> u32 {
    let em: u64 = text.chars().map(|c| u64::from(advance(c))).sum();
    ((em * u64::from(font_px) + 500) / 1000) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_glyphs_not_the_count() {
        // i is 222/1000 em, W 944: at 20 px 4.44 and 18.88 px.
        let cases = [
            ("iiii", TITLE_FONT_PX, 18),
            ("WWWW", TITLE_FONT_PX, 76),
            ("", TITLE_FONT_PX, 0),
            ("Hello, World", DESCRIPTION_FONT_PX, 76),
            ("café", TITLE_FONT_PX, 38),
            ("日本", TITLE_FONT_PX, 40),
            ("e\u{301}", TITLE_FONT_PX, 11),
        ];
        for (text, size, px) in cases {
            assert_eq!(width_px(text, size), px, "{text:?} at {size} px");
        }
    }
}
