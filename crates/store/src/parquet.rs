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
use polars_arrow::array::{Array, PrimitiveArray, Utf8ViewArray};
use polars_arrow::types::NativeType;
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
        self.write_row_groups(df, None).map(|_| ())
    }

    /// [`ParquetFile::write`], taking the pages of every column whose Arrow
    /// array `shared` already holds encoded (the same memory, type and
    /// encoding) and keeping those it encodes there. A table derived from
    /// another by a Polars map shares the memory of every column it takes
    /// unchanged, so writing both through one [`SharedPages`] encodes and
    /// compresses each such column once; the pages are a function of the
    /// array, its type and the options, so the bytes are those of
    /// [`ParquetFile::write`]. Returns how many columns were taken.
    pub fn write_sharing(&mut self, df: &DataFrame, shared: &mut SharedPages) -> Result<usize> {
        self.write_row_groups(df, Some(shared))
    }

    fn write_row_groups(&mut self, df: &DataFrame, mut shared: Option<&mut SharedPages>) -> Result<usize> {
        let context = |e| Error::polars(self.path.display().to_string(), e);
        let mut taken = 0;
        for batch in df.iter_chunks(CompatLevel::newest(), false) {
            if batch.is_empty() {
                continue;
            }
            let arrays = batch.columns();
            let mut columns: Vec<Option<ColumnPages>> = arrays
                .iter()
                .zip(&self.columns)
                .map(|(array, spec)| shared.as_deref_mut().and_then(|s| s.take(array, spec, self.options)))
                .collect();
            let from_shared: Vec<bool> = columns.iter().map(Option::is_some).collect();
            taken += from_shared.iter().filter(|&&t| t).count();
            for (i, pages) in self.compressed(arrays, &columns).map_err(context)? {
                columns[i] = Some(pages);
            }
            let leaves: Vec<usize> = columns.iter().map(|c| c.as_ref().map_or(0, Vec::len)).collect();
            let mut pages: ColumnPages = columns.into_iter().flat_map(|c| c.expect("every column encoded")).collect();
            self.writer.write_row_group(batch.len() as u64, &pages).map_err(context)?;
            // What this file encoded is kept, pages and all, for the next.
            if let Some(s) = shared.as_deref_mut() {
                let mut pages = pages.drain(..);
                for (i, n) in leaves.into_iter().enumerate() {
                    let column: ColumnPages = pages.by_ref().take(n).collect();
                    if !from_shared[i] {
                        s.keep(&arrays[i], &self.columns[i], self.options, column);
                    }
                }
            }
        }
        Ok(taken)
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

    /// The compressed pages of every column of one row group that `done`
    /// does not hold yet, with its index, each column taken by the next
    /// free thread.
    fn compressed(&self, arrays: &[ArrayRef], done: &[Option<ColumnPages>]) -> PolarsResult<Vec<(usize, ColumnPages)>> {
        let todo: Vec<usize> = (0..arrays.len()).filter(|&i| done[i].is_none()).collect();
        let slots: Vec<Mutex<Option<PolarsResult<ColumnPages>>>> = todo.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let work = || loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&i) = todo.get(k) else { return };
            let (ty, encoding) = &self.columns[i];
            *slots[k].lock().expect("column slot") = Some(column_pages(&arrays[i], ty, encoding, self.options));
        };
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(todo.len());
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(work);
            }
            work();
        });
        let mut pages = Vec::with_capacity(todo.len());
        for (i, slot) in todo.into_iter().zip(slots) {
            pages.push((i, slot.into_inner().expect("column slot").expect("every column encoded")?));
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

/// Columns encoded for one file, kept for another that writes the same
/// Arrow arrays ([`ParquetFile::write_sharing`]): ingest writes a table and
/// the unified jobs rows mapped from each of its batches, which share the
/// batch's job ids, users, times and more. Held per batch: it keeps the
/// arrays (so their memory cannot be reused by others while kept) and
/// their compressed pages, which move to the file that takes them.
#[derive(Default)]
pub struct SharedPages {
    columns: Vec<SharedColumn>,
}

struct SharedColumn {
    array: ArrayRef,
    /// The column's Parquet type without its name (pages do not hold the
    /// name), and its encodings.
    ty: ParquetType,
    encoding: Vec<Encoding>,
    options: WriteOptions,
    pages: ColumnPages,
}

impl SharedPages {
    /// The pages of `array` encoded as `spec` says, if kept; each kept
    /// column is written once more at most (the pages move).
    fn take(
        &mut self,
        array: &ArrayRef,
        (ty, encoding): &(ParquetType, Vec<Encoding>),
        options: WriteOptions,
    ) -> Option<ColumnPages> {
        let ty = unnamed(ty);
        let same = |c: &SharedColumn| {
            c.options == options && c.encoding == *encoding && c.ty == ty && same_memory(&*c.array, &**array)
        };
        let at = self.columns.iter().position(same)?;
        Some(self.columns.swap_remove(at).pages)
    }

    fn keep(
        &mut self,
        array: &ArrayRef,
        (ty, encoding): &(ParquetType, Vec<Encoding>),
        options: WriteOptions,
        pages: ColumnPages,
    ) {
        let (array, ty, encoding) = (array.clone(), unnamed(ty), encoding.clone());
        self.columns.push(SharedColumn { array, ty, encoding, options, pages });
    }
}

fn unnamed(ty: &ParquetType) -> ParquetType {
    let mut ty = ty.clone();
    match &mut ty {
        ParquetType::PrimitiveType(p) => p.field_info.name = PlSmallStr::EMPTY,
        ParquetType::GroupType { field_info, .. } => field_info.name = PlSmallStr::EMPTY,
    }
    ty
}

/// Whether two arrays are views of the same memory: same type, length,
/// validity bits and values (or string views and their buffers). Both are
/// alive, so equal addresses mean equal contents. Types other than the
/// canonical columns' answer no, and are encoded again.
fn same_memory(a: &dyn Array, b: &dyn Array) -> bool {
    let validity = |x: &dyn Array| {
        x.validity().map(|v| {
            let (bits, offset, len) = v.as_slice();
            (bits.as_ptr(), offset, len)
        })
    };
    if a.dtype() != b.dtype() || a.len() != b.len() || validity(a) != validity(b) {
        return false;
    }
    if let (Some(x), Some(y)) = (a.as_any().downcast_ref::<Utf8ViewArray>(), b.as_any().downcast_ref::<Utf8ViewArray>())
    {
        let buffers = |v: &Utf8ViewArray| v.data_buffers().iter().map(|b| b.as_ptr()).collect::<Vec<_>>();
        return x.views().as_ptr() == y.views().as_ptr() && buffers(x) == buffers(y);
    }
    fn values<T: NativeType>(a: &dyn Array, b: &dyn Array) -> Option<bool> {
        let (x, y) = (a.as_any().downcast_ref::<PrimitiveArray<T>>()?, b.as_any().downcast_ref::<PrimitiveArray<T>>()?);
        Some(x.values().as_ptr() == y.values().as_ptr())
    }
    values::<i64>(a, b).or_else(|| values::<f64>(a, b)).or_else(|| values::<i32>(a, b)).unwrap_or(false)
}

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
    fn shared_columns_are_written_once_with_the_bytes_of_encoding_them() {
        let n = 100_000i64;
        let mut batch = df!(
            "id" => (0..n).map(|i| format!("a job id longer than twelve bytes {i}")).collect::<Vec<_>>(),
            "kind" => (0..n).map(|i| ["sft", "eval", "pretrain"][(i % 3) as usize]).collect::<Vec<_>>(),
            "n" => (0..n).map(|i| (i % 9 != 0).then_some(i % 50)).collect::<Vec<_>>(),
            "f" => (0..n).map(|i| i as f64 / 7.0).collect::<Vec<_>>(),
            "t" => (0..n).map(|i| 1_600_000_000_000_000 + i * 7_000_001).collect::<Vec<_>>(),
        )
        .unwrap();
        batch.with_column(batch.column("t").unwrap().cast(&dtype(ColType::Timestamp)).unwrap()).unwrap();
        batch.rechunk_mut();
        // Derived as ingest derives the unified rows: some columns taken as
        // they are (one renamed), one computed, one constant.
        let derived = batch
            .clone()
            .lazy()
            .select([
                lit("acme").alias("trace"),
                col("id"),
                col("t").alias("submit"),
                (col("f") * lit(2.0)).alias("twice"),
                col("n"),
            ])
            .collect()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, df: &DataFrame, shared: Option<&mut SharedPages>| {
            let path = dir.path().join(name);
            let mut file = ParquetFile::create(&path, df.schema()).unwrap();
            let taken = match shared {
                Some(s) => file.write_sharing(df, s).unwrap(),
                None => {
                    file.write(df).unwrap();
                    0
                }
            };
            file.finish().unwrap();
            (std::fs::read(path).unwrap(), taken)
        };
        let mut shared = SharedPages::default();
        let (batch_bytes, taken) = write("batch.parquet", &batch, Some(&mut shared));
        assert_eq!(taken, 0, "nothing to take before the first file");
        let (derived_bytes, taken) = write("derived.parquet", &derived, Some(&mut shared));
        assert_eq!(taken, 3, "id, submit (t renamed) and n are the batch's own arrays");
        assert!(batch_bytes == write("batch-alone.parquet", &batch, None).0);
        assert!(derived_bytes == write("derived-alone.parquet", &derived, None).0, "same bytes as encoding them");
        // Equal values in other memory are encoded again, not taken.
        let mut copy = derived.clone();
        let id: Vec<String> = (0..n).map(|i| format!("a job id longer than twelve bytes {i}")).collect();
        copy.with_column(Column::new("id".into(), id)).unwrap();
        let mut shared = SharedPages::default();
        write("batch-again.parquet", &batch, Some(&mut shared));
        let (copy_bytes, taken) = write("copy.parquet", &copy, Some(&mut shared));
        assert_eq!(taken, 2, "submit and n only");
        assert!(copy_bytes == derived_bytes);
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
