//! `export [--format F] [--out FILE] [--warc FILE]`: the whole store in
//! one format (see `crate::export`), to stdout or to FILE, which appears
//! whole or not at all. `warc` to a FILE ending in `.gz` is gzipped
//! record by record. `parquet` needs FILE, and with `--warc` writes that
//! WARC too (both appear whole); `cdxj` indexes the `--warc` FILE and
//! needs no store.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::args::ExportFormat;
use super::{open_existing, CliError, CliResult};
use crate::export::parquet::WarcBeside;
use crate::export::warc::WarcWriter;
use crate::export::{self, ExportError};
use crate::outfile::{PartFile, WriteError};
use crate::store::Reader;

pub fn run(
    db: Option<PathBuf>,
    format: ExportFormat,
    out: Option<PathBuf>,
    warc: Option<PathBuf>,
) -> CliResult {
    match (format, warc, out) {
        (ExportFormat::Cdxj, Some(warc), out) => cdxj(&warc, out),
        (ExportFormat::Parquet, warc, Some(out)) => parquet(db, &out, warc.as_deref()),
        // The parser asks for these already; kept for callers that skip it.
        (ExportFormat::Cdxj, None, _) => usage("--format cdxj needs --warc FILE"),
        (ExportFormat::Sitemap, None, out) => sitemap(db, out),
        (ExportFormat::Parquet, _, None) => usage("--format parquet needs --out FILE"),
        (_, Some(_), _) => usage("--warc goes with --format parquet or --format cdxj"),
        (format, None, out) => {
            let store = open_existing(db)?;
            let r = store.read()?;
            emit(out, |w, gzip| write(&r, format, w, gzip))
        }
    }
}

/// A usage error as the parser reports one (exit 2).
fn usage(message: &str) -> CliResult {
    use clap::CommandFactory;
    super::Cli::command()
        .error(clap::error::ErrorKind::ArgumentConflict, message)
        .exit()
}

/// Runs `f` on stdout, or on FILE (gzip when its name ends in `.gz`),
/// which appears only when `f` succeeds.
fn emit(
    out: Option<PathBuf>,
    f: impl FnOnce(&mut dyn Write, bool) -> Result<(), ExportError>,
) -> CliResult {
    match out {
        None => {
            let mut w = io::BufWriter::new(io::stdout().lock());
            f(&mut w, false)?;
            w.flush()?;
            Ok(())
        }
        Some(path) => {
            let mut file = PartFile::create(&path)?;
            let written = f(&mut file, is_gz(&path)).and_then(|()| Ok(file.flush()?));
            match written {
                Ok(()) => Ok(file.commit()?),
                Err(ExportError::Output(source)) => Err(WriteError { path, source }.into()),
                Err(e) => Err(e.into()),
            }
        }
    }
}

fn is_gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

fn write(
    r: &Reader<'_>,
    format: ExportFormat,
    mut w: &mut dyn Write,
    gzip: bool,
) -> Result<(), ExportError> {
    match format {
        ExportFormat::SpiderResult => export::spider_result::write(r, &mut w),
        ExportFormat::Jsonl => export::jsonl::write(r, &mut w),
        ExportFormat::Csv => export::csv::write(r, &mut w),
        ExportFormat::Warc => {
            let counts = export::warc::write(r, &mut w, gzip)?;
            note_without_head(counts.without_head);
            Ok(())
        }
        ExportFormat::Links => export::links::write(r, &mut w),
        // Dispatched by `run`: they need a file, a WARC and no store, or
        // several files.
        ExportFormat::Parquet | ExportFormat::Cdxj | ExportFormat::Sitemap => Ok(()),
    }
}

/// The indexable pages as one sitemap, or past 50,000 as parts beside
/// FILE, which indexes them by the URL they will have on the site (its
/// origin, the part's file name).
fn sitemap(db: Option<PathBuf>, out: Option<PathBuf>) -> CliResult {
    use export::sitemap::{entries, parts, write_index, write_urlset, MAX_URLS};
    let store = open_existing(db)?;
    let entries = entries(&store.read()?)?;
    if entries.len() <= MAX_URLS {
        return emit(out, |w, _| write_urlset(w, &entries));
    }
    let Some(index) = out else {
        return usage("more than 50,000 indexable pages: --format sitemap needs --out FILE (the sitemap index; its parts go beside it)");
    };
    let origin = (url::Url::parse(&entries[0].url).ok())
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default();
    let mut locs = Vec::new();
    for (path, range) in parts(&index, entries.len(), MAX_URLS) {
        emit(Some(path.clone()), |w, _| write_urlset(w, &entries[range]))?;
        locs.push(format!("{origin}/{}", file_name(&path)));
    }
    emit(Some(index), |w, _| write_index(w, &locs))
}

fn note_without_head(count: u64) {
    if count > 0 {
        eprintln!(
            "note: {count} fetched page(s) left out of the WARC: no HTTP head was kept for them"
        );
    }
}

/// The rows to `out` and, with `warc`, that WARC beside them; the WARC
/// appears first, so rows never point into a file that is not there.
fn parquet(db: Option<PathBuf>, out: &Path, warc: Option<&Path>) -> CliResult {
    let store = open_existing(db)?;
    let r = store.read()?;
    let mut file = PartFile::create(out)?;
    let mut warc_file = match warc {
        Some(path) => Some((PartFile::create(path)?, path)),
        None => None,
    };
    let beside = match &mut warc_file {
        Some((sink, path)) => Some(WarcBeside {
            warc: WarcWriter::start(sink, is_gz(path)).map_err(|source| WriteError {
                path: path.to_path_buf(),
                source,
            })?,
            filename: file_name(path),
        }),
        None => None,
    };
    let written = export::parquet::write(&r, &mut file, beside).map_err(|e| match e {
        ExportError::Output(source) => WriteError {
            path: out.to_path_buf(),
            source,
        }
        .into(),
        e => CliError::from(e),
    })?;
    if let Some(counts) = written {
        note_without_head(counts.without_head);
    }
    if let Some((sink, _)) = warc_file {
        sink.commit()?;
    }
    file.commit()?;
    Ok(())
}

fn cdxj(warc: &Path, out: Option<PathBuf>) -> CliResult {
    let input = File::open(warc)
        .map_err(|e| CliError::ExportInput(format!("cannot read {}: {e}", warc.display())))?;
    let name = file_name(warc);
    emit(out, |mut w, _| {
        export::cdxj::write(input, &name, &mut w).map(drop)
    })
}

/// The name a CDX line or a row gives a WARC: its file name, as pywb
/// resolves it in its archive directory.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
