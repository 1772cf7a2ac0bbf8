//! The console's vocabulary: the messages that change the model ([`Msg`]),
//! the commands it asks of the runtime ([`Command`]), the time it sees
//! ([`Clock`]) and the store snapshot it is refreshed with.

use std::time::Instant;

use crossterm::event::{KeyEvent, MouseEvent};

use super::findings_jobs::{Counts, Listed};
use super::panes::graph::PageView;
use super::panes::log::LogLine;
use super::panes::lookup::Detail;
use super::panes::queue::QueueRow;
use crate::crawl::{CrawlCommand, CrawlEvent};
use crate::runs::Run;
use crate::search::Results;
use crate::store::{OriginFigures, PageId, PointId, PointRecord, StateCounts};

/// The time as the model sees it. Ticks bring it; tests fix it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    pub now: Instant,
    /// Unix seconds, for the log's time of day.
    pub unix: i64,
}

impl Clock {
    pub(crate) fn system() -> Clock {
        Clock {
            now: Instant::now(),
            unix: crate::time::unix_now(),
        }
    }
}

/// What the store looks like now, read off the render path.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Snapshot {
    pub frontier: Vec<QueueRow>,
    /// What is queued, claimed and on the wire, from the same read.
    pub work: crate::crawl::WorkAtHand,
    pub store_bytes: u64,
    /// Every URL of the store by state: the totals beside this run's counts.
    pub totals: StateCounts,
    pub points: Vec<(PointId, PointRecord)>,
    /// The documents that are not deleted, by name.
    pub docs: Vec<String>,
    /// Every origin's request figures, for the status bar.
    pub origins: Vec<(String, OriginFigures)>,
    /// Every point's runs, newest first, for the Points pane.
    pub runs: Vec<Run>,
}

/// Everything that can change the model.
// A message is moved once, from a job to the model: a page view inline
// (a few hundred bytes) costs less than boxing every one.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub(crate) enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    Tick(Clock),
    /// Engine events, drained in one go.
    Engine(Vec<CrawlEvent>),
    CrawlStarted,
    /// The engine's task ended (Err: why it failed).
    CrawlEnded(Result<(), String>),
    Snapshot(Snapshot),
    SearchDone {
        seq: u64,
        query: String,
        result: Result<Results, String>,
    },
    DetailDone(Detail),
    LogFound {
        seq: u64,
        result: Result<Vec<LogLine>, String>,
    },
    PageLoaded {
        seq: u64,
        result: Result<PageView, String>,
    },
    /// The points and documents after a write, and what the write did.
    Points {
        points: Vec<(PointId, PointRecord)>,
        docs: Vec<String>,
        note: String,
    },
    /// The findings counted per kind.
    FindingCounts(Result<Counts, String>),
    FindingRows {
        seq: u64,
        result: Result<Listed, String>,
    },
    /// The shared frontier's cluster as read at unix ms `read_at`.
    Cluster {
        view: Result<crate::crawl::shared::cluster::View, String>,
        read_at: i64,
    },
    /// Something to tell the user for a moment.
    Info(String),
    Error(String),
}

/// What the model asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    Quit,
    Engine(CrawlCommand),
    /// Start a crawl of these points; empty: every active point.
    StartCrawl(Vec<PointId>),
    /// Search `query`, the best `limit` pages (more as the list scrolls).
    Search {
        seq: u64,
        query: String,
        limit: usize,
    },
    LoadDetail {
        page: PageId,
        query: String,
    },
    LoadPage {
        seq: u64,
        page: PageId,
    },
    Refresh,
    /// Every URL of the store the log filter `terms` keeps.
    LogSearch {
        seq: u64,
        terms: Vec<String>,
    },
    SavePoint {
        id: Option<PointId>,
        /// Boxed: a point record dwarfs the other variants.
        rec: Box<PointRecord>,
    },
    DeletePoint(PointId),
    SetActive(PointId, bool),
    /// Make document `name`, or rename `old` to it.
    SaveDoc {
        old: Option<String>,
        name: String,
    },
    DeleteDoc(String),
    /// Count the findings of every kind.
    CountFindings,
    ListFindings {
        seq: u64,
        kind: &'static str,
    },
    /// Write a finding kind as CSV in the current directory.
    ExportFindings(&'static str),
    /// Read the shared frontier's cluster.
    ReadCluster,
    /// Pause, resume or stop every crawler of the cluster.
    Order(crate::crawl::shared::control::Order),
    Batch(Vec<Command>),
}

pub(crate) fn batch(mut cmds: Vec<Command>) -> Option<Command> {
    match cmds.len() {
        0 => None,
        1 => cmds.pop(),
        _ => Some(Command::Batch(cmds)),
    }
}

/// A box over the panes that takes the next key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Modal {
    Help,
    ConfirmQuit,
}

#[derive(Debug, Clone)]
/// A message shown for a moment in the footer.
pub(crate) struct Flash {
    pub text: String,
    pub error: bool,
    pub until: Instant,
}

/// How the console starts.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Shown in the status bar's corner (the store path).
    pub db_label: String,
    /// Seconds east of UTC for times of day and dates.
    pub tz_offset: i64,
    pub clock: Clock,
}
