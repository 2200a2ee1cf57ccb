//! How every Parquet file of a store is written: the canonical column
//! types, the compression, the Arrow schema older readers understand, and
//! the size and SHA-256 of what was written. Ingest, the derived-frame
//! cache and the unified table write through [`ParquetFile`], so one store
//! is written one way.

use std::fs::File;
use std::io::{BufWriter, Cursor, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use polars::io::parquet::write::{get_encodings, BatchedWriter, KeyValueMetadata};
use polars::prelude::*;
use polars_parquet::read::{get_page_iterator, read_metadata};
use polars_parquet::write::{
    array_to_columns, CompressedPage, Compressor, Encoding, ParquetType, StatisticsOptions, Version, WriteOptions,
};
use sha2::{Digest, Sha256};
use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::{ColType, Table};

/// Compression of every Parquet file tracelab writes: zstd level 1. Level
/// 3 (the default) spent a third of ingest time in the compressor for files
/// only a few percent smaller; level 1 keeps ingest I/O-bound.
pub fn compression() -> ParquetCompression {
    ParquetCompression::Zstd(Some(
        polars::polars_utils::compression::ZstdLevel::try_new(1).expect("1 is a valid zstd level"),
    ))
}

/// The Polars data type a canonical column is stored as.
pub fn dtype(ty: ColType) -> DataType {
    match ty {
        ColType::Str => DataType::String,
        ColType::I64 => DataType::Int64,
        ColType::F64 => DataType::Float64,
        ColType::Timestamp => DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)),
        ColType::Date => DataType::Date,
    }
}

/// The Polars schema of a canonical table.
pub fn polars_schema(table: &Table) -> Schema {
    table.columns.iter().map(|c| Field::new(PlSmallStr::from_str(c.name), dtype(c.ty))).collect()
}

/// The Arrow schema stored in the file (`ARROW:schema`), at Polars' oldest
/// compatibility level: strings as `large_string`, not `string_view`
/// (Arrow type 24), which pyarrow 14 and older cannot read ("Unrecognized
/// type: 24"). Polars' eager writer always states the newest types, so the
/// entry is given here; the pages are the same either way (Parquet
/// `BYTE_ARRAY` with the `String` logical type), only the Arrow type a
/// reader restores differs.
fn compatible_arrow_schema(schema: &Schema) -> KeyValueMetadata {
    let arrow = schema.to_arrow(CompatLevel::oldest());
    KeyValueMetadata::Static(vec![polars_parquet::write::schema_to_metadata_key(&arrow)])
}

/// Size and SHA-256 of the bytes written so far, shared with the writer.
type Tally = Arc<Mutex<(Sha256, u64)>>;

/// Counts and hashes what passes through to the file.
struct Digesting {
    file: File,
    tally: Tally,
}

impl Write for Digesting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        let mut t = self.tally.lock().expect("digest");
        t.0.update(&buf[..n]);
        t.1 += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// A Parquet file written one row group at a time.
pub struct ParquetFile {
    writer: BatchedWriter<BufWriter<Digesting>>,
    /// How each column is encoded and compressed, as Polars' writer would.
    columns: Vec<(ParquetType, Vec<Encoding>)>,
    options: WriteOptions,
    tally: Tally,
    path: PathBuf,
}

/// What [`ParquetFile::finish`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub bytes: u64,
    pub sha256: String,
}

impl ParquetFile {
    /// Creates `path` (replacing it) for frames of `schema`.
    pub fn create(path: &Path, schema: &Schema) -> Result<ParquetFile> {
        let file = File::create(path).at(path)?;
        let tally: Tally = Arc::default();
        let sink = BufWriter::with_capacity(1 << 20, Digesting { file, tally: Arc::clone(&tally) });
        let mut writer = ParquetWriter::new(sink)
            .with_compression(compression())
            .with_key_value_metadata(Some(compatible_arrow_schema(schema)))
            .batched(schema)
            .map_err(|e| Error::polars(format!("{}: start writing", path.display()), e))?;
        // The settings `ParquetWriter` gives its batched writer, which
        // encodes with them but does not expose them.
        let fields = writer.parquet_schema().fields().to_vec();
        let encodings = get_encodings(&schema.to_arrow(CompatLevel::newest()));
        let columns = fields.into_iter().zip(encodings.iter().cloned()).collect();
        let options = WriteOptions {
            statistics: StatisticsOptions::default(),
            version: Version::V1,
            compression: compression().into(),
            data_page_size: None,
        };
        Ok(ParquetFile { writer, columns, options, tally, path: path.to_path_buf() })
    }

    /// Appends `df` as row groups (one per chunk). The columns of a row
    /// group are encoded and compressed on all cores, then written in order:
    /// Polars' batched writer compresses on the calling thread, which made
    /// the writer of a single large file the bottleneck of its ingest (the
    /// pages, and so the bytes, are the same).
    pub fn write(&mut self, df: &DataFrame) -> Result<()> {
        let context = |e| Error::polars(self.path.display().to_string(), e);
        for batch in df.iter_chunks(CompatLevel::newest(), false) {
            if batch.is_empty() {
                continue;
            }
            let pages = self.compressed(batch.columns()).map_err(context)?;
            self.writer.write_row_group(batch.len() as u64, &pages).map_err(context)?;
        }
        Ok(())
    }

    /// Appends every row group of the Parquet file at `path` as it is: its
    /// compressed pages are copied, not decoded and encoded again, so the
    /// bytes are those [`ParquetFile::write`] gives the same frames. The file
    /// must have been written by a [`ParquetFile`] of the same schema.
    /// Returns the rows appended.
    pub fn append_file(&mut self, path: &Path) -> Result<u64> {
        let bytes = std::fs::read(path).at(path)?;
        let buffer = polars_buffer::Buffer::from(bytes);
        let context = |e| Error::polars(path.display().to_string(), e);
        let meta = read_metadata(&mut Cursor::new(buffer.clone())).map_err(context)?;
        if meta.schema().columns() != self.writer.parquet_schema().columns() {
            let e = std::io::Error::other(format!("its columns are not those of {}", self.path.display()));
            return Err(Error::io(path, e));
        }
        let mut rows = 0;
        for group in &meta.row_groups {
            let pages = group
                .parquet_columns()
                .iter()
                .map(|column| {
                    get_page_iterator(column, Cursor::new(buffer.clone()), vec![], usize::MAX)?
                        .map(|page| page.map(with_rows))
                        .collect::<std::result::Result<Vec<_>, _>>()
                })
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|e| context(e.into()))?;
            self.writer.write_row_group(group.num_rows() as u64, &pages).map_err(context)?;
            rows += group.num_rows() as u64;
        }
        Ok(rows)
    }

    /// The compressed pages of every column of one row group, in column
    /// order, each column taken by the next free thread.
    fn compressed(&self, arrays: &[ArrayRef]) -> PolarsResult<ColumnPages> {
        let slots: Vec<Mutex<Option<PolarsResult<ColumnPages>>>> = arrays.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(array) = arrays.get(i) else { return };
            let (ty, encoding) = &self.columns[i];
            *slots[i].lock().expect("column slot") = Some(column_pages(array, ty, encoding, self.options));
        };
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(arrays.len());
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(work);
            }
            work();
        });
        let mut pages = Vec::with_capacity(arrays.len());
        for slot in slots {
            pages.extend(slot.into_inner().expect("column slot").expect("every column encoded")?);
        }
        Ok(pages)
    }

    /// Writes the footer; returns the file's size and SHA-256.
    pub fn finish(self) -> Result<Written> {
        let size = self.writer.finish().map_err(|e| Error::polars(self.path.display().to_string(), e))?;
        // The buffer is flushed when the writer drops, where an error (a
        // full disk) is not reported: a short count shows it.
        drop(self.writer);
        let (hasher, bytes) = Arc::try_unwrap(self.tally).expect("writer dropped").into_inner().expect("digest");
        if bytes != size {
            let e = std::io::Error::other(format!("wrote {bytes} of {size} bytes"));
            return Err(Error::io(&self.path, e));
        }
        Ok(Written { bytes, sha256: crate::manifest::hex(&hasher.finalize()) })
    }
}

/// Compressed pages, one list per Parquet leaf column.
type ColumnPages = Vec<Vec<CompressedPage>>;

/// A page as read, with the row count the writer asks for: the number of
/// values, as every canonical column is flat (neither nested nor repeated).
fn with_rows(mut page: CompressedPage) -> CompressedPage {
    if let CompressedPage::Data(data) = &mut page {
        data.num_rows = Some(data.num_values());
    }
    page
}

/// One column's pages, encoded and compressed (one list per Parquet leaf
/// column; a canonical column is one leaf).
fn column_pages(
    array: &ArrayRef,
    ty: &ParquetType,
    encoding: &[Encoding],
    options: WriteOptions,
) -> PolarsResult<ColumnPages> {
    array_to_columns(array, ty.clone(), options, encoding)?
        .into_iter()
        .map(|pages| {
            let compressed =
                Compressor::new(pages.map(|p| p.map_err(|e| to_parquet_error(&e))), options.compression, vec![]);
            compressed.collect::<std::result::Result<Vec<_>, _>>().map_err(PolarsError::from)
        })
        .collect()
}

/// Polars' own writer re-raises encoding errors the same way.
fn to_parquet_error(e: &PolarsError) -> polars_parquet::read::ParquetError {
    polars_parquet::read::ParquetError::FeatureNotSupported(format!("reraised in polars: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_states_large_strings_and_its_digest_is_of_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let mut df = df!("s" => ["a", "bb"], "n" => [1i64, 2]).unwrap();
        let mut file = ParquetFile::create(&path, df.schema()).unwrap();
        file.write(&df).unwrap();
        let written = file.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(written.bytes, bytes.len() as u64);
        let want = crate::manifest::hex(&Sha256::digest(&bytes));
        assert_eq!(written.sha256, want);
        // Polars reads it back as it was.
        let back = ParquetReader::new(File::open(&path).unwrap()).finish().unwrap();
        assert!(back.equals(&df.rechunk_mut().clone()));
        // The stored Arrow schema is the compatible one: LargeUtf8, not Utf8View.
        // The footer states the oldest-level Arrow schema (large_string),
        // not the one Polars' writer would (string_view).
        let entry = |level| {
            let kv = polars_parquet::write::schema_to_metadata_key(&df.schema().to_arrow(level));
            kv.value.unwrap()
        };
        let holds = |needle: String| bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
        assert!(holds(entry(CompatLevel::oldest())));
        assert!(!holds(entry(CompatLevel::newest())));
    }

    #[test]
    fn the_bytes_are_those_of_polars_own_batched_writer() {
        // Columns of every canonical type, nulls, a dictionary-friendly
        // string and more than one page, in two row groups.
        let n = 300_000i64;
        let mut df = df!(
            "s" => (0..n).map(|i| format!("job-{}", i % 977)).collect::<Vec<_>>(),
            "long" => (0..n).map(|i| (i % 5 != 0).then(|| format!("a longer text than twelve bytes {i}"))).collect::<Vec<_>>(),
            "i" => (0..n).map(|i| (i % 7 != 0).then_some(i * 31 % 1000)).collect::<Vec<_>>(),
            "f" => (0..n).map(|i| i as f64 / 3.0).collect::<Vec<_>>(),
            "t" => (0..n).map(|i| 1_600_000_000_000_000 + i * 1_000_003).collect::<Vec<_>>(),
        )
        .unwrap();
        df.with_column(df.column("t").unwrap().cast(&dtype(ColType::Timestamp)).unwrap()).unwrap();
        let schema = df.schema().clone();
        let dir = tempfile::tempdir().unwrap();
        let ours = dir.path().join("ours.parquet");
        let mut file = ParquetFile::create(&ours, &schema).unwrap();
        for (offset, len) in [(0, 200_000), (200_000, 100_000)] {
            file.write(&df.slice(offset, len)).unwrap();
        }
        file.finish().unwrap();
        let theirs = dir.path().join("theirs.parquet");
        let mut writer = ParquetWriter::new(File::create(&theirs).unwrap())
            .with_compression(compression())
            .with_key_value_metadata(Some(compatible_arrow_schema(&schema)))
            .batched(&schema)
            .unwrap();
        for (offset, len) in [(0, 200_000), (200_000, 100_000)] {
            writer.write_batch(&df.slice(offset, len)).unwrap();
        }
        writer.finish().unwrap();
        drop(writer);
        assert!(std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap(), "same bytes as Polars' writer");
    }

    #[test]
    fn appended_row_groups_are_the_bytes_of_writing_the_frames() {
        let n = 70_000i64;
        let frame = |salt: i64| {
            let mut df = df!(
                "s" => (0..n).map(|i| format!("job-{}", (i + salt) % 313)).collect::<Vec<_>>(),
                "i" => (0..n).map(|i| (i % 11 != 0).then_some(i * salt)).collect::<Vec<_>>(),
                "f" => (0..n).map(|i| (i + salt) as f64 / 7.0).collect::<Vec<_>>(),
                "t" => (0..n).map(|i| 1_600_000_000_000_000 + i * salt).collect::<Vec<_>>(),
            )
            .unwrap();
            df.with_column(df.column("t").unwrap().cast(&dtype(ColType::Timestamp)).unwrap()).unwrap();
            df
        };
        let (a, b, c) = (frame(1), frame(2), frame(3));
        let schema = a.schema().clone();
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, frames: &[&DataFrame]| {
            let path = dir.path().join(name);
            let mut file = ParquetFile::create(&path, &schema).unwrap();
            for f in frames {
                file.write(f).unwrap();
            }
            (path, file)
        };
        let (part, file) = write("part.parquet", &[&b, &c]);
        file.finish().unwrap();
        let (copied, mut file) = write("copied.parquet", &[&a]);
        assert_eq!(file.append_file(&part).unwrap(), 2 * n as u64);
        let copied_written = file.finish().unwrap();
        let (direct, file) = write("direct.parquet", &[&a, &b, &c]);
        file.finish().unwrap();
        let bytes = std::fs::read(&copied).unwrap();
        assert!(bytes == std::fs::read(&direct).unwrap(), "same bytes as writing the frames");
        assert_eq!(copied_written.bytes, bytes.len() as u64);
        // And a file of other columns is refused, naming it.
        let other = dir.path().join("other.parquet");
        let mut df = df!("s" => ["x"]).unwrap();
        let mut file = ParquetFile::create(&other, df.schema()).unwrap();
        file.write(&df.rechunk_mut().clone()).unwrap();
        file.finish().unwrap();
        let (_, mut file) = write("refuses.parquet", &[&a]);
        let e = file.append_file(&other).unwrap_err().to_string();
        assert!(e.contains("other.parquet") && e.contains("not those of"), "{e}");
    }
}
