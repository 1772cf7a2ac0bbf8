//! A Parquet file written row by row: the rows of one row group are held
//! column by column and written when the group is full, so memory stays
//! bounded whatever the number of rows. Every column is optional (a null
//! is a cell without a value), as in Common Crawl's columnar index.
//! Snappy-compressed, dictionary-encoded where the writer finds it pays.

use std::io::Write;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::column::writer::{ColumnWriter, ColumnWriterImpl};
use parquet::data_type::{ByteArray, DataType};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// A column's type as readers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Text,
    /// A 16-bit integer (held in Parquet's int32).
    Int16,
    Int32,
    Int64,
    /// Milliseconds since the Unix epoch, UTC.
    TimestampMillis,
    Double,
}

impl Kind {
    /// The physical type and annotation in Parquet's schema language.
    fn schema(self) -> &'static str {
        match self {
            Kind::Text => "binary",
            Kind::Int16 => "int32",
            Kind::Int32 => "int32",
            Kind::Int64 | Kind::TimestampMillis => "int64",
            Kind::Double => "double",
        }
    }

    fn annotation(self) -> &'static str {
        match self {
            Kind::Text => " (STRING)",
            Kind::Int16 => " (INTEGER(16,true))",
            Kind::TimestampMillis => " (TIMESTAMP(MILLIS,true))",
            Kind::Int32 | Kind::Int64 | Kind::Double => "",
        }
    }
}

/// One cell of a row; None is null.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(Option<String>),
    /// For [`Kind::Int16`] and [`Kind::Int32`].
    Int(Option<i32>),
    /// For [`Kind::Int64`] and [`Kind::TimestampMillis`].
    Long(Option<i64>),
    Double(Option<f64>),
}

/// One column's values of the row group being gathered, and which rows
/// have one (definition level 1) or are null (0).
enum Values {
    Text(Vec<ByteArray>),
    Int(Vec<i32>),
    Long(Vec<i64>),
    Double(Vec<f64>),
}

struct ColumnBuf {
    name: &'static str,
    values: Values,
    defs: Vec<i16>,
}

impl ColumnBuf {
    fn new(name: &'static str, kind: Kind) -> Self {
        let values = match kind {
            Kind::Text => Values::Text(Vec::new()),
            Kind::Int16 | Kind::Int32 => Values::Int(Vec::new()),
            Kind::Int64 | Kind::TimestampMillis => Values::Long(Vec::new()),
            Kind::Double => Values::Double(Vec::new()),
        };
        ColumnBuf {
            name,
            values,
            defs: Vec::new(),
        }
    }

    /// Adds a row's cell; the bytes it holds.
    fn push(&mut self, cell: Cell) -> Result<usize, ParquetError> {
        let (present, bytes) = match (&mut self.values, cell) {
            (Values::Text(v), Cell::Text(c)) => match c {
                Some(s) => {
                    let n = s.len();
                    v.push(ByteArray::from(s.into_bytes()));
                    (true, n)
                }
                None => (false, 0),
            },
            (Values::Int(v), Cell::Int(c)) => (c.map(|x| v.push(x)).is_some(), 4),
            (Values::Long(v), Cell::Long(c)) => (c.map(|x| v.push(x)).is_some(), 8),
            (Values::Double(v), Cell::Double(c)) => (c.map(|x| v.push(x)).is_some(), 8),
            (_, cell) => return Err(mismatch(self.name, &cell)),
        };
        self.defs.push(i16::from(present));
        Ok(bytes)
    }

    /// Writes the gathered values into the row group's column and empties
    /// the buffer.
    fn write_to(&mut self, column: &mut ColumnWriter<'_>) -> Result<(), ParquetError> {
        let defs = Some(self.defs.as_slice());
        match (&mut self.values, column) {
            (Values::Text(v), ColumnWriter::ByteArrayColumnWriter(w)) => write_batch(w, v, defs)?,
            (Values::Int(v), ColumnWriter::Int32ColumnWriter(w)) => write_batch(w, v, defs)?,
            (Values::Long(v), ColumnWriter::Int64ColumnWriter(w)) => write_batch(w, v, defs)?,
            (Values::Double(v), ColumnWriter::DoubleColumnWriter(w)) => write_batch(w, v, defs)?,
            _ => {
                return Err(ParquetError::General(format!(
                    "column {}: the schema's type differs from the buffer's",
                    self.name
                )))
            }
        }
        self.defs.clear();
        Ok(())
    }
}

/// Writes one column's values of a row group and empties them.
fn write_batch<T: DataType>(
    w: &mut ColumnWriterImpl<'_, T>,
    values: &mut Vec<T::T>,
    defs: Option<&[i16]>,
) -> Result<(), ParquetError> {
    w.write_batch(values, defs, None)?;
    values.clear();
    Ok(())
}

fn mismatch(column: &str, cell: &Cell) -> ParquetError {
    ParquetError::General(format!(
        "column {column}: a cell of the wrong type: {cell:?}"
    ))
}

/// When a row group is written: at this many rows, or this many bytes of
/// values, whichever comes first.
#[derive(Debug, Clone, Copy)]
pub struct GroupLimits {
    pub rows: usize,
    pub bytes: usize,
}

impl Default for GroupLimits {
    fn default() -> Self {
        // Large enough for readers to skip by statistics well (DuckDB
        // reads a row group per thread), small enough to stay a few tens
        // of megabytes in memory.
        GroupLimits {
            rows: 64 * 1024,
            bytes: 32 << 20,
        }
    }
}

pub struct ParquetRows<W: Write + Send> {
    file: SerializedFileWriter<W>,
    columns: Vec<ColumnBuf>,
    rows: usize,
    bytes: usize,
    limits: GroupLimits,
}

impl<W: Write + Send> ParquetRows<W> {
    /// Starts a file whose rows have `columns`, in order.
    pub fn new(
        w: W,
        columns: &[(&'static str, Kind)],
        limits: GroupLimits,
    ) -> Result<Self, ParquetError> {
        let fields: String = columns
            .iter()
            .map(|(name, kind)| {
                format!("optional {} {name}{};\n", kind.schema(), kind.annotation())
            })
            .collect();
        let schema = parse_message_type(&format!("message crawlscope {{\n{fields}}}"))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("crawlscope {}", env!("CARGO_PKG_VERSION")))
            .build();
        let file = SerializedFileWriter::new(w, Arc::new(schema), Arc::new(props))?;
        Ok(ParquetRows {
            file,
            columns: columns.iter().map(|&(n, k)| ColumnBuf::new(n, k)).collect(),
            rows: 0,
            bytes: 0,
            limits,
        })
    }

    /// Adds one row, a cell per column in order; writes the row group
    /// when it is full.
    pub fn push(&mut self, row: impl IntoIterator<Item = Cell>) -> Result<(), ParquetError> {
        let mut cells = 0;
        for (column, cell) in self.columns.iter_mut().zip(row) {
            self.bytes += column.push(cell)?;
            cells += 1;
        }
        if cells != self.columns.len() {
            return Err(ParquetError::General(format!(
                "a row of {cells} cells for {} columns",
                self.columns.len()
            )));
        }
        self.rows += 1;
        if self.rows >= self.limits.rows || self.bytes >= self.limits.bytes {
            self.write_group()?;
        }
        Ok(())
    }

    fn write_group(&mut self) -> Result<(), ParquetError> {
        let mut group = self.file.next_row_group()?;
        for column in &mut self.columns {
            let Some(mut writer) = group.next_column()? else {
                return Err(ParquetError::General(format!(
                    "the schema has no column {}",
                    column.name
                )));
            };
            column.write_to(writer.untyped())?;
            writer.close()?;
        }
        group.close()?;
        self.rows = 0;
        self.bytes = 0;
        Ok(())
    }

    /// Writes the last row group and the footer; the sink back.
    pub fn finish(mut self) -> Result<W, ParquetError> {
        if self.rows > 0 {
            self.write_group()?;
        }
        self.file.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    use super::*;

    const COLUMNS: [(&str, Kind); 3] = [
        ("name", Kind::Text),
        ("n", Kind::Int16),
        ("at", Kind::TimestampMillis),
    ];

    fn row(i: i32) -> [Cell; 3] {
        [
            Cell::Text((i % 2 == 0).then(|| format!("row {i}"))),
            Cell::Int(Some(i)),
            Cell::Long(Some(1_700_000_000_000 + i64::from(i))),
        ]
    }

    #[test]
    fn rows_come_back_in_bounded_row_groups_with_their_nulls() {
        let limits = GroupLimits {
            rows: 2,
            bytes: 1 << 20,
        };
        let mut w = ParquetRows::new(Vec::new(), &COLUMNS, limits).unwrap();
        for i in 0..5 {
            w.push(row(i)).unwrap();
        }
        let bytes = bytes::Bytes::from(w.finish().unwrap());
        let reader = SerializedFileReader::new(bytes).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.num_row_groups(), 3);
        assert_eq!(meta.file_metadata().num_rows(), 5);
        let rows: Vec<Vec<Field>> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| {
                r.unwrap()
                    .into_columns()
                    .into_iter()
                    .map(|(_, f)| f)
                    .collect()
            })
            .collect();
        assert_eq!(rows[0][0], Field::Str("row 0".into()));
        assert_eq!(rows[1][0], Field::Null);
        assert_eq!(rows[3][1], Field::Short(3));
        assert_eq!(rows[4][2], Field::TimestampMillis(1_700_000_000_004));
    }

    #[test]
    fn a_row_that_does_not_fit_the_columns_is_an_error() {
        let mut w = ParquetRows::new(Vec::new(), &COLUMNS, GroupLimits::default()).unwrap();
        let short = [Cell::Text(None)];
        assert!(w.push(short).is_err());
        let wrong = [Cell::Int(None), Cell::Int(None), Cell::Long(None)];
        assert!(w.push(wrong).is_err());
    }
}
