//! The bench-only part switches: `CRAWLSCOPE_BENCH_OFF`, a comma list of
//! `bodies`, `pairs`, `links` and `history`, read once when `crawl`
//! starts, turns that part of a crawl's work off, so that a benchmark
//! (`bench/parts.sh`) can weigh each part against a crawl with all of them.
//! Each switch skips the work, not only the write: `bodies` compresses no
//! body, `pairs` counts no phrase pairs when segments merge, `links` gives
//! the store no link graph (the frontier still gets every URL found),
//! `history` writes no run entry. A store crawled so lacks the part (and a
//! page fetched again unchanged follows no stored links when `links` was
//! off): it is a measuring tool, not a user's option.

use std::fmt;

/// The environment variable naming the parts to turn off.
pub const BENCH_OFF: &str = "CRAWLSCOPE_BENCH_OFF";

/// A part of a crawl's work that a benchmark may turn off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Bodies,
    Pairs,
    Links,
    History,
}

/// Every part by its name, in the order they are listed.
const PARTS: [(&str, Part); 4] = [
    ("bodies", Part::Bodies),
    ("pairs", Part::Pairs),
    ("links", Part::Links),
    ("history", Part::History),
];

/// The parts a crawl leaves out (none by default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PartsOff(u8);

/// A name in `CRAWLSCOPE_BENCH_OFF` that is no part.
#[derive(Debug, thiserror::Error)]
#[error("{BENCH_OFF}: no part named '{0}' (the parts: bodies, pairs, links, history)")]
pub struct UnknownPart(String);

impl PartsOff {
    /// The parts `CRAWLSCOPE_BENCH_OFF` names (unset: none).
    pub fn from_env() -> Result<PartsOff, UnknownPart> {
        match std::env::var(BENCH_OFF) {
            Ok(list) => PartsOff::parse(&list),
            Err(std::env::VarError::NotPresent) => Ok(PartsOff::default()),
            Err(std::env::VarError::NotUnicode(v)) => {
                Err(UnknownPart(v.to_string_lossy().into_owned()))
            }
        }
    }

    /// The parts of a comma list (blanks around names and empty items
    /// are ignored).
    pub fn parse(list: &str) -> Result<PartsOff, UnknownPart> {
        let mut off = PartsOff::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let (_, part) = PARTS
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| UnknownPart(name.to_string()))?;
            off.0 |= bit(*part);
        }
        Ok(off)
    }

    /// Whether `part` is turned off.
    pub fn off(self, part: Part) -> bool {
        self.0 & bit(part) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

fn bit(part: Part) -> u8 {
    1 << part as u8
}

/// The parts off as a comma list, in the order of [`PARTS`].
impl fmt::Display for PartsOff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = PARTS
            .iter()
            .filter(|(_, p)| self.off(*p))
            .map(|(n, _)| *n)
            .collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_to_the_parts_they_name_and_nothing_else() {
        let cases: [(&str, Result<&str, &str>); 7] = [
            ("", Ok("")),
            ("bodies", Ok("bodies")),
            ("history, pairs", Ok("pairs,history")),
            ("links,,links,", Ok("links")),
            (
                "bodies,pairs,links,history",
                Ok("bodies,pairs,links,history"),
            ),
            ("bodies,body", Err("body")),
            ("Pairs", Err("Pairs")),
        ];
        for (list, want) in cases {
            let got = PartsOff::parse(list).map(|p| p.to_string());
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{list:?}"),
                (Err(e), Err(name)) => {
                    assert!(e.to_string().contains(&format!("'{name}'")), "{e}")
                }
                (got, want) => panic!("{list:?}: {got:?}, expected {want:?}"),
            }
        }
        let off = PartsOff::parse("pairs").unwrap_or_default();
        assert!(off.off(Part::Pairs) && !off.off(Part::Bodies) && !off.off(Part::Links));
    }
}
