//! The names of what the console counts. The status bar shows each figure
//! under one of these labels, and the log's filter takes each label as a
//! query for exactly the rows that figure counts: one list, so the two
//! cannot drift apart and a new figure is a new filter.

use crate::store::SkipReason;

/// A figure of the status bar, by what it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Label {
    /// Pages answered with a 2xx and stored.
    Fetched,
    /// Pages answered with a 4xx or 5xx, or not answered at all.
    Errors,
    NotModified,
    /// A 200 whose body is the one stored.
    Unchanged,
    Skipped,
    /// Skipped for this reason.
    Skip(SkipReason),
    /// An origin asked for a pause (429, 503 with Retry-After).
    Throttled,
    /// Answers of a status class: 2 for 2xx ... 5 for 5xx.
    Class(u16),
    /// Failures without a response (refused, timeout, redirect loops...).
    NoAnswer,
    /// Pages stored with a 2xx answer (fetched, not modified or unchanged).
    Done,
}

/// Skip reasons in the order the status bar lists them.
pub(crate) const SKIP_REASONS: [SkipReason; 5] = [
    SkipReason::Robots,
    SkipReason::OutOfScope,
    SkipReason::Excluded,
    SkipReason::TooDeep,
    SkipReason::Nofollow,
];

/// The run's figures on the status bar's first row (skip reasons go with
/// `Skipped`).
pub(crate) const RUN: [Label; 6] = [
    Label::Fetched,
    Label::Errors,
    Label::NotModified,
    Label::Unchanged,
    Label::Skipped,
    Label::Throttled,
];

/// The run's answers by class, the second row's other face (`b`).
pub(crate) const CLASSES: [Label; 5] = [
    Label::Class(2),
    Label::Class(3),
    Label::Class(4),
    Label::Class(5),
    Label::NoAnswer,
];

/// The store's totals over all runs, on the second row.
pub(crate) const STORE: [Label; 3] = [Label::Done, Label::Errors, Label::Skipped];

impl Label {
    /// Every label the status bar can show, each once.
    pub(crate) fn all() -> impl Iterator<Item = Label> {
        RUN.into_iter()
            .chain(SKIP_REASONS.map(Label::Skip))
            .chain(CLASSES)
            .chain([Label::Done])
    }

    pub(crate) fn text(self) -> &'static str {
        match self {
            Label::Fetched => "fetched",
            Label::Errors => "errors",
            Label::NotModified => "not modified",
            Label::Unchanged => "unchanged",
            Label::Skipped => "skipped",
            Label::Skip(SkipReason::Robots) => "robots",
            Label::Skip(SkipReason::OutOfScope) => "out of scope",
            Label::Skip(SkipReason::Excluded) => "excluded",
            Label::Skip(SkipReason::TooDeep) => "too deep",
            Label::Skip(SkipReason::Nofollow) => "nofollow",
            Label::Throttled => "throttled",
            Label::Class(2) => "2xx",
            Label::Class(3) => "3xx",
            Label::Class(4) => "4xx",
            Label::Class(_) => "5xx",
            Label::NoAnswer => "no answer",
            Label::Done => "done",
        }
    }

    /// The label a filter names: its words, in any case and spacing.
    pub(crate) fn named(terms: &[String]) -> Option<Label> {
        let asked = terms.join(" ");
        Label::all().find(|l| l.text() == asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_distinct_and_named_by_their_words() {
        let all: Vec<Label> = Label::all().collect();
        for (i, l) in all.iter().enumerate() {
            assert!(!all[..i].contains(l), "{l:?} twice");
            let terms: Vec<String> = l.text().split(' ').map(str::to_string).collect();
            assert_eq!(Label::named(&terms), Some(*l));
        }
        assert_eq!(Label::named(&["scope".into()]), None);
    }
}
