//! `export [--format F] [--out FILE]`: the whole store in one format (see
//! `crate::export`), to stdout or to FILE, which appears whole or not at
//! all. `warc` to a FILE ending in `.gz` is gzipped record by record.

use std::io::{self, Write};
use std::path::PathBuf;

use super::args::ExportFormat;
use super::CliResult;
use crate::export::{self, ExportError};
use crate::outfile::{PartFile, WriteError};
use crate::store::Store;

pub fn run(store: &Store, format: ExportFormat, out: Option<PathBuf>) -> CliResult {
    let r = store.read()?;
    match out {
        None => {
            let mut w = io::BufWriter::new(io::stdout().lock());
            write(&r, format, &mut w, false)?;
            w.flush()?;
            Ok(())
        }
        Some(path) => {
            let gzip = path.extension().is_some_and(|e| e == "gz");
            let mut file = PartFile::create(&path)?;
            let written = write(&r, format, &mut file, gzip).and_then(|()| Ok(file.flush()?));
            match written {
                Ok(()) => Ok(file.commit()?),
                Err(ExportError::Output(source)) => Err(WriteError { path, source }.into()),
                Err(e) => Err(e.into()),
            }
        }
    }
}

fn write(
    r: &crate::store::Reader<'_>,
    format: ExportFormat,
    w: &mut impl Write,
    gzip: bool,
) -> Result<(), ExportError> {
    match format {
        ExportFormat::SpiderResult => export::spider_result::write(r, w),
        ExportFormat::Jsonl => export::jsonl::write(r, w),
        ExportFormat::Csv => export::csv::write(r, w),
        ExportFormat::Warc => {
            let counts = export::warc::write(r, w, gzip)?;
            if counts.without_head > 0 {
                eprintln!(
                    "note: {} fetched page(s) left out of the WARC: no HTTP head was kept for them",
                    counts.without_head
                );
            }
            Ok(())
        }
        ExportFormat::Links => export::links::write(r, w),
    }
}
