//! `export --format parquet|cdxj`: the Parquet file read back by readers
//! that are not its writer, with Common Crawl's columns, types and values:
//! the `parquet` crate's reader always, pyarrow beside it as a second
//! opinion; with `--warc`, its rows and the CDXJ index of that WARC both
//! point at each URL's response record, plain and gzipped.
//! Bad input: a usage error or one error line, never a partial file.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use parquet::basic::{LogicalType, TimeUnit, Type as Physical};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use parquet::schema::types::ColumnDescriptor;
use serde_json::Value;

use crate::export_formats::export;
use crate::support::crawl::*;
use crate::support::{on_store, page, Reply, Resp, TestServer};
use crawlscope::export::warc::payload_digest;

const HOME: &str = r#"<!DOCTYPE html><html><head><title>Engines home</title></head>
<body><a href="/q?b=2&a=1">q</a> <a href="/old">old</a> <a href="/notes.txt">notes</a>
<a href="/missing">missing</a></body></html>"#;

/// The columns and their types as pyarrow names them, in order.
const COLUMNS: [(&str, &str); 22] = [
    ("url", "string"),
    ("url_surtkey", "string"),
    ("url_host_name", "string"),
    ("url_protocol", "string"),
    ("url_port", "int32"),
    ("url_path", "string"),
    ("url_query", "string"),
    ("fetch_time", "timestamp[ms, tz=UTC]"),
    ("fetch_status", "int16"),
    ("fetch_redirect", "string"),
    ("content_digest", "string"),
    ("content_mime_type", "string"),
    ("content_charset", "string"),
    ("content_truncated", "string"),
    ("warc_filename", "string"),
    ("warc_record_offset", "int64"),
    ("warc_record_length", "int64"),
    ("title", "string"),
    ("depth", "int32"),
    ("inlinks", "int32"),
    ("link_score", "double"),
    ("indexability", "string"),
];

fn crawled() -> (TestServer, tempfile::TempDir) {
    let s = TestServer::start();
    s.route("/", Reply::Respond(Resp::html(HOME)));
    s.route("/q?b=2&a=1", Reply::Respond(page("Query", "q", &[])));
    s.route("/old", Reply::Respond(Resp::redirect(301, "/new")));
    s.route("/new", Reply::Respond(page("New", "new", &[])));
    s.route("/notes.txt", Reply::Respond(Resp::text("plain notes")));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    (s, db)
}

/// A Parquet file as read back: its columns' names and types (in
/// pyarrow's words), one JSON object per row (a timestamp as its
/// milliseconds since the epoch), its row groups.
struct Table {
    names: Vec<String>,
    types: Vec<String>,
    rows: Vec<Value>,
    row_groups: usize,
}

/// The file as the `parquet` crate reads it: needs no Python.
fn parquet_read(file: &Path) -> Table {
    let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
    let meta = reader.metadata();
    let columns = meta.file_metadata().schema_descr().columns();
    let rows = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            let cells = row.get_column_iter().map(|(n, f)| (n.clone(), json_of(f)));
            Value::Object(cells.collect())
        })
        .collect();
    Table {
        names: columns.iter().map(|c| c.name().to_string()).collect(),
        types: columns.iter().map(|c| type_name(c)).collect(),
        rows,
        row_groups: meta.num_row_groups(),
    }
}

/// A column's physical and logical type as pyarrow names the pair; any
/// pair the export should not write, spelled out to fail the comparison.
fn type_name(c: &ColumnDescriptor) -> String {
    let logical = c.logical_type_ref();
    let name = match (c.physical_type(), logical) {
        (Physical::BYTE_ARRAY, Some(LogicalType::String)) => "string",
        (Physical::INT32, Some(l)) if *l == LogicalType::integer(16, true) => "int16",
        (Physical::INT32, None) => "int32",
        (Physical::INT64, Some(l)) if *l == LogicalType::timestamp(true, TimeUnit::MILLIS) => {
            "timestamp[ms, tz=UTC]"
        }
        (Physical::INT64, None) => "int64",
        (Physical::DOUBLE, None) => "double",
        (physical, _) => return format!("{physical:?} {logical:?}"),
    };
    name.to_string()
}

fn json_of(field: &Field) -> Value {
    match field {
        Field::Null => Value::Null,
        Field::Short(n) => (*n).into(),
        Field::Int(n) => (*n).into(),
        Field::Long(n) | Field::TimestampMillis(n) => (*n).into(),
        Field::Double(x) => (*x).into(),
        Field::Str(s) => s.as_str().into(),
        other => panic!("a cell of a type the export does not write: {other:?}"),
    }
}

/// pyarrow's reading of `file` agrees with `table` (names, types, row
/// groups, every row and cell), when pyarrow is there or not left out
/// (`support::tool_missing`).
fn pyarrow_agrees(file: &Path, table: &Table) {
    // A timestamp as its milliseconds, as `parquet_read` gives it; its
    // zone is in the type ("tz=UTC").
    const SCRIPT: &str = r#"
import json, sys
import pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
t = f.read()
print(json.dumps({"names": t.schema.names, "types": [str(x.type) for x in t.schema],
                  "rows": t.to_pylist(), "row_groups": f.num_row_groups},
                 default=lambda d: round(d.timestamp() * 1000)))
"#;
    let has = std::process::Command::new("python3")
        .args(["-c", "import pyarrow"])
        .output();
    if !has.as_ref().is_ok_and(|o| o.status.success()) {
        crate::support::tool_missing(
            "pyarrow",
            "pip install pyarrow (.ci/run does)",
            "pyarrow's second reading of the Parquet export",
        );
        return;
    }
    let out = std::process::Command::new("python3")
        .args(["-c", SCRIPT])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pyarrow rejected {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let py: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(py["names"], serde_json::json!(table.names));
    assert_eq!(py["types"], serde_json::json!(table.types));
    assert_eq!(py["row_groups"], table.row_groups);
    assert_eq!(py["rows"], Value::Array(table.rows.clone()));
}

/// The rows by their URL.
fn by_url(table: &Table) -> HashMap<String, Value> {
    let rows: HashMap<String, Value> = table
        .rows
        .iter()
        .map(|r| (r["url"].as_str().unwrap().to_string(), r.clone()))
        .collect();
    assert_eq!(rows.len(), table.rows.len(), "a URL in two rows");
    rows
}

fn unix_ms() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

/// The WARC record at `offset..offset+length` of `file` (a gzip member
/// when gzipped): its headers, lower-case names.
fn record_at(file: &[u8], gzip: bool, offset: u64, length: u64) -> HashMap<String, String> {
    let slice = &file[offset as usize..(offset + length) as usize];
    let text = if gzip {
        let mut dec = flate2::bufread::GzDecoder::new(slice);
        let mut out = Vec::new();
        dec.read_to_end(&mut out).unwrap();
        assert!(dec.into_inner().is_empty(), "more than one member");
        out
    } else {
        slice.to_vec()
    };
    assert!(text.starts_with(b"WARC/1.1\r\n"), "no record at {offset}");
    assert!(text.ends_with(b"\r\n\r\n"), "the record at {offset} is cut");
    let head_end = text.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    String::from_utf8_lossy(&text[..head_end])
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect()
}

#[test]
fn parquet_and_cdxj_point_into_the_warc_and_read_back_elsewhere() {
    // Whole seconds: a fetch time in milliseconds may be a second's start.
    let before = unix_ms() / 1000 * 1000;
    let (s, db) = crawled();
    let after = unix_ms();
    let dir = tempfile::tempdir().unwrap();
    let port = s.addr().port();
    let surt = |path: &str| format!("1,0,0,127:{port}){path}");
    let fetched = ["/", "/q?b=2&a=1", "/old", "/new", "/notes.txt", "/missing"].map(|p| s.url(p));
    let responses: Vec<&String> = fetched.iter().filter(|u| !u.ends_with("/old")).collect();

    // Without --warc: the rows, and no WARC columns.
    let bare = dir.path().join("bare.parquet");
    export(
        db.path(),
        &["--format", "parquet", "--out", bare.to_str().unwrap()],
    );
    let table = parquet_read(&bare);
    let names: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
    let types: Vec<&str> = COLUMNS.iter().map(|c| c.1).collect();
    assert_eq!(table.names, names);
    assert_eq!(table.types, types);
    assert_eq!(table.row_groups, 1);
    let rows = by_url(&table);
    let mut got: Vec<&String> = rows.keys().collect();
    got.sort();
    let mut want: Vec<&String> = fetched.iter().collect();
    want.sort();
    assert_eq!(got, want, "one row per fetched URL");

    let home = &rows[&s.base()];
    assert_eq!(home["url_surtkey"], surt("/"));
    assert_eq!(home["url_host_name"], "127.0.0.1");
    assert_eq!(home["url_protocol"], "http");
    assert_eq!(home["url_port"], port);
    assert_eq!(home["url_path"], "/");
    assert_eq!(home["url_query"], Value::Null);
    assert_eq!(home["fetch_status"], 200);
    assert_eq!(home["content_mime_type"], "text/html");
    assert_eq!(home["content_charset"], "utf-8");
    assert_eq!(home["content_digest"], payload_digest(HOME.as_bytes()));
    assert_eq!(home["content_truncated"], Value::Null);
    assert_eq!(home["title"], "Engines home");
    assert_eq!(home["depth"], 0);
    assert_eq!(home["indexability"], "indexable");
    assert!(home["link_score"]
        .as_f64()
        .is_some_and(|s| (0.0..=100.0).contains(&s)));
    let fetch_time = home["fetch_time"].as_i64().unwrap();
    assert!((before..=after).contains(&fetch_time), "{fetch_time}");
    let query = &rows[&s.url("/q?b=2&a=1")];
    assert_eq!(query["url_surtkey"], surt("/q?a=1&b=2"));
    assert_eq!(query["url_query"], "b=2&a=1");
    assert_eq!(query["inlinks"], 1);
    let notes = &rows[&s.url("/notes.txt")];
    assert_eq!(notes["content_mime_type"], "text/plain");
    assert_eq!(notes["indexability"], Value::Null, "not a page");
    assert_eq!(rows[&s.url("/missing")]["fetch_status"], 404);
    assert_eq!(rows[&s.url("/missing")]["indexability"], "non_200");
    let old = &rows[&s.url("/old")];
    assert_eq!(old["fetch_status"], 301);
    assert_eq!(old["fetch_redirect"], s.url("/new"));
    assert_eq!(old["depth"], 1);
    assert_eq!(old["indexability"], "redirected");
    for row in rows.values() {
        for column in ["warc_filename", "warc_record_offset", "warc_record_length"] {
            assert_eq!(row[column], Value::Null, "{column} without --warc");
        }
    }
    pyarrow_agrees(&bare, &table);

    for name in ["crawl.warc", "crawl.warc.gz"] {
        let gzip = name.ends_with(".gz");
        let warc = dir.path().join(name);
        let out = dir.path().join(format!("{name}.parquet"));
        export(
            db.path(),
            &[
                "--format",
                "parquet",
                "--out",
                out.to_str().unwrap(),
                "--warc",
                warc.to_str().unwrap(),
            ],
        );
        let bytes = std::fs::read(&warc).unwrap();
        let with_warc = parquet_read(&out);
        assert_eq!(with_warc.types, types);
        let mut pointed = 0;
        for row in &with_warc.rows {
            let url = row["url"].as_str().unwrap();
            if url.ends_with("/old") {
                assert_eq!(row["warc_record_offset"], Value::Null);
                continue;
            }
            assert_eq!(row["warc_filename"], name, "{url}");
            let offset = row["warc_record_offset"].as_u64().unwrap();
            let length = row["warc_record_length"].as_u64().unwrap();
            let record = record_at(&bytes, gzip, offset, length);
            assert_eq!(record["warc-type"], "response", "{name} {url}");
            assert_eq!(record["warc-target-uri"], url, "{name}");
            assert_eq!(
                record["warc-payload-digest"],
                format!("sha1:{}", rows[url]["content_digest"].as_str().unwrap())
            );
            pointed += 1;
        }
        assert_eq!(pointed, responses.len());
        pyarrow_agrees(&out, &with_warc);
        // The CDXJ of that WARC: a line per response, sorted, each
        // pointing at its record.
        let index = export(
            db.path(),
            &["--format", "cdxj", "--warc", warc.to_str().unwrap()],
        )
        .stdout;
        let text = String::from_utf8(index).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(lines, sorted, "{name}: CDXJ lines unsorted");
        assert_eq!(lines.len(), responses.len(), "{name}: {text}");
        let mut indexed = Vec::new();
        for line in &lines {
            let mut parts = line.splitn(3, ' ');
            let (key, timestamp) = (parts.next().unwrap(), parts.next().unwrap());
            let fields: Value = serde_json::from_str(parts.next().unwrap()).unwrap();
            let url = fields["url"].as_str().unwrap();
            assert_eq!(key, rows[url]["url_surtkey"], "{line}");
            assert_eq!(timestamp.len(), 14, "{line}");
            assert!(timestamp.bytes().all(|b| b.is_ascii_digit()), "{line}");
            assert_eq!(fields["filename"], name);
            assert_eq!(fields["status"], rows[url]["fetch_status"].to_string());
            assert_eq!(fields["mime"], rows[url]["content_mime_type"]);
            assert_eq!(fields["digest"], rows[url]["content_digest"]);
            let offset: u64 = fields["offset"].as_str().unwrap().parse().unwrap();
            let length: u64 = fields["length"].as_str().unwrap().parse().unwrap();
            let record = record_at(&bytes, gzip, offset, length);
            assert_eq!(record["warc-type"], "response", "{line}");
            assert_eq!(record["warc-target-uri"], url, "{line}");
            indexed.push(url.to_string());
        }
        indexed.sort();
        let mut want: Vec<String> = responses.iter().map(|u| u.to_string()).collect();
        want.sort();
        assert_eq!(indexed, want);
    }
}

#[test]
fn bad_engine_export_input_fails_cleanly_and_writes_nothing() {
    let (_s, db) = crawled();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.warc");
    export(
        db.path(),
        &["--format", "warc", "--out", good.to_str().unwrap()],
    );
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.path().join("cut.warc");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let not_warc = dir.path().join("notes.txt");
    std::fs::write(&not_warc, "just some notes\n").unwrap();
    let out = dir.path().join("out.cdxj");
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let cases: [(Vec<String>, i32, &str); 6] = [
        (vec!["--format".into(), "parquet".into()], 2, "--out"),
        (vec!["--format".into(), "cdxj".into()], 2, "--warc"),
        (
            vec![
                "--format".into(),
                "csv".into(),
                "--warc".into(),
                path(&good),
            ],
            2,
            "--warc goes with --format parquet or --format cdxj",
        ),
        (
            vec![
                "--format".into(),
                "cdxj".into(),
                "--warc".into(),
                path(&dir.path().join("none.warc")),
            ],
            1,
            "error: cannot read",
        ),
        (
            vec![
                "--format".into(),
                "cdxj".into(),
                "--warc".into(),
                path(&not_warc),
                "--out".into(),
                path(&out),
            ],
            1,
            "error: notes.txt: not a WARC record at byte 0",
        ),
        (
            vec![
                "--format".into(),
                "cdxj".into(),
                "--warc".into(),
                path(&cut),
                "--out".into(),
                path(&out),
            ],
            1,
            "error: cut.warc: not a WARC record at byte",
        ),
    ];
    for (args, code, says) in cases {
        let mut all = vec!["export"];
        all.extend(args.iter().map(String::as_str));
        let run = on_store(db.path(), &all);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{all:?}: {err}");
        assert!(err.contains(says), "{all:?}: {err}");
        if code == 1 {
            assert_eq!(err.lines().count(), 1, "{all:?}: {err}");
        }
        assert!(run.stdout.is_empty(), "{all:?}");
    }
    let mut left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["cut.warc", "good.warc", "notes.txt"]);
}
