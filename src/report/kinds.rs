//! Every kind `report` answers, declared once: its name, whether it is a
//! finding (what `report summary` counts and `--fail-on`, `--junit` and
//! `crawl --format` judge) or a table (slow pages, hosts: figures, never
//! wrong in themselves), the list type that finds its rows and the one
//! that counts it, and the noun its table uses. The CLI, the console's
//! Findings pane, the summary and the kept figures all read this table, so
//! a new kind is one line here and one file beside it.

use std::collections::BTreeMap;

use super::*;

/// Something done with one list kind, whichever it is: the faces' way of
/// calling a generic function on a kind named at run time.
pub trait VisitList {
    type Out;
    fn visit<K: ListKind>(self, noun: &'static str) -> Self::Out;
}

macro_rules! kinds {
    (
        whole { $($w:ident = $wname:literal),* $(,)? }
        findings { $($f:ident = $fname:literal: $flist:ty, counted $fcount:ty, $fnoun:literal;)* }
        tables { $($t:ident = $tname:literal: $tlist:ty, $tnoun:literal;)* }
    ) => {
        /// What `report` can answer.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
        pub enum Kind {
            $(#[value(name = $wname)] $w,)*
            $(#[value(name = $fname)] $f,)*
            $(#[value(name = $tname)] $t,)*
        }

        impl Kind {
            /// The name `report` takes and the summary counts it by.
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$w => $wname,)*
                    $(Kind::$f => $fname,)*
                    $(Kind::$t => $tname,)*
                }
            }

            /// Every kind, in the order declared.
            pub const ALL: &'static [Kind] = &[$(Kind::$w,)* $(Kind::$f,)* $(Kind::$t,)*];

            /// The kinds whose rows are findings, in the order declared.
            pub const FINDINGS: &'static [Kind] = &[$(Kind::$f,)*];

            /// Whether its rows are findings (else it is a table or a whole).
            pub fn is_finding(self) -> bool {
                Kind::FINDINGS.contains(&self)
            }

            /// Calls `v` with the list type of this kind; None for the
            /// kinds that answer one object (`summary`, `depth`, `changes`).
            pub fn visit_list<V: VisitList>(self, v: V) -> Option<V::Out> {
                match self {
                    $(Kind::$w => None,)*
                    $(Kind::$f => Some(v.visit::<$flist>($fnoun)),)*
                    $(Kind::$t => Some(v.visit::<$tlist>($tnoun)),)*
                }
            }

            /// Calls `v` with the type that counts this finding kind's
            /// findings (a kind may list more than it counts: `resources`
            /// lists every resource, counts the broken ones); None for a
            /// kind that is not a finding.
            pub fn visit_counted<V: VisitList>(self, v: V) -> Option<V::Out> {
                match self {
                    $(Kind::$f => Some(v.visit::<$fcount>($fnoun)),)*
                    _ => None,
                }
            }
        }
    };
}

kinds! {
    whole {
        Summary = "summary",
        Depth = "depth",
        Changes = "changes",
    }
    findings {
        Broken = "broken": broken::Broken, counted broken::Broken, "broken URLs";
        Redirects = "redirects": redirects::Redirects, counted redirects::Redirects, "redirect chains";
        Titles = "titles": titles::Titles, counted titles::Titles, "title issues";
        Descriptions = "descriptions": descriptions::Descriptions, counted descriptions::Descriptions, "description issues";
        Headings = "headings": headings::Headings, counted headings::Headings, "heading issues";
        Duplicates = "duplicates": duplicates::Duplicates, counted duplicates::Duplicates, "duplicate groups";
        Directives = "directives": directives::Directives, counted directives::Directives, "pages with directives";
        Canonicals = "canonicals": canonicals::Canonicals, counted canonicals::Canonicals, "canonical issues";
        External = "external": external::External, counted external::External, "broken external links";
        NearDuplicates = "near-duplicates": near_duplicates::NearDuplicates, counted near_duplicates::NearDuplicates, "near-duplicate pairs";
        Fragments = "fragments": fragments::Fragments, counted fragments::Fragments, "missing fragments";
        Indexability = "indexability": indexability::NonIndexable, counted indexability::NonIndexable, "non-indexable pages";
        Sitemaps = "sitemaps": sitemaps::Sitemaps, counted sitemaps::Sitemaps, "sitemap issues";
        Resources = "resources": resources::Resources, counted resources::BrokenResources, "resources";
        Images = "images": images::Images, counted images::Images, "image issues";
        Search = "search": custom::Search, counted custom::Search, "pages found by --search";
        Hreflang = "hreflang": hreflang::Hreflang, counted hreflang::Hreflang, "hreflang issues";
        StructuredData = "structured-data": structured_data::StructuredData, counted structured_data::StructuredData, "structured data issues";
        Pagination = "pagination": pagination::Pagination, counted pagination::Pagination, "pagination issues";
        Security = "security": security::Security, counted security::Security, "security issues";
        HttpLinks = "http-links": http_links::HttpLinks, counted http_links::HttpLinks, "http links with an https twin";
    }
    tables {
        Slow = "slow": slow::Slow, "pages";
        Large = "large": large::Large, "pages";
        Mimetypes = "mimetypes": mimetypes::Mimetypes, "mimetypes";
        Hosts = "hosts": hosts::Hosts, "origins";
        Links = "links": links::Links, "pages";
        Javascript = "javascript": javascript::Javascript, "rendering changes";
        Extract = "extract": custom::Extract, "pages with --extract values";
    }
}

/// The finding kinds by name, as usage errors list them.
pub fn finding_names() -> Vec<&'static str> {
    Kind::FINDINGS.iter().map(|k| k.name()).collect()
}

/// Counts one finding kind's findings in `ctx`.
struct Count<'c, 'a, 's>(&'c Ctx<'a, 's>);

impl VisitList for Count<'_, '_, '_> {
    type Out = Result<usize>;
    fn visit<K: ListKind>(self, _: &'static str) -> Result<usize> {
        self.0.count::<K>()
    }
}

/// Each finding kind's count, by name: `report summary`'s `findings`.
pub fn count_findings(ctx: &Ctx<'_, '_>) -> Result<BTreeMap<&'static str, usize>> {
    let mut out = BTreeMap::new();
    for kind in Kind::FINDINGS {
        if let Some(n) = kind.visit_counted(Count(ctx)) {
            out.insert(kind.name(), n?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// The first cells of docs/CLI.md's table of `report` kinds.
    fn documented_kinds() -> Vec<&'static str> {
        let docs = include_str!("../../docs/CLI.md");
        let report = docs.split("\n## report\n").nth(1).unwrap_or_default();
        let report = report.split("\n## ").next().unwrap_or_default();
        (report.lines())
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split(" |").next())
            .collect()
    }

    /// A kind half-added (no row in the user's table of kinds, or a
    /// finding the summary does not count) fails here.
    #[test]
    fn every_kind_is_documented_and_every_finding_counted() {
        let rows = documented_kinds();
        for kind in Kind::ALL {
            let named = format!("`{}`", kind.name());
            assert!(
                rows.iter().any(|r| format!("`{r}").contains(&named)),
                "report {} has no row in docs/CLI.md's table of kinds",
                kind.name()
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let findings = |store: &Store| {
            let r = store.read().unwrap();
            let ctx = Ctx::new(&r, None).unwrap();
            let s = summary::summary(&ctx).unwrap();
            s.findings.keys().copied().collect::<Vec<_>>()
        };
        let mut names = finding_names();
        names.sort_unstable();
        assert_eq!(findings(&store), names, "counted afresh");
        assert!(kept::refresh(&store).unwrap());
        assert_eq!(findings(&store), names, "as kept");
    }
}
