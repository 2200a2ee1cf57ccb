//! The object store a query reads the store's files through: the local
//! file system, with the byte ranges of a scan served from a memory map of
//! the file instead of read into fresh buffers.
//!
//! DataFusion reads a Parquet file's column chunks with `get_ranges`.
//! `object_store`'s local store answers it on a thread of Tokio's blocking
//! pool, allocates a buffer per range, fills it with zeros and copies the
//! file into it: for `workload-resource-use`, which reads 100 MB of
//! compressed columns, the zeroing, the copy and the fresh pages took about
//! 6 % of the query's CPU time. Mapped, a range is a view of the file's
//! pages in the page cache, shared and never copied.
//!
//! Every other operation (the footer's read, listing, metadata) goes to
//! `object_store`'s own local store unchanged.
//!
//! A map stays valid while the file is replaced: tracelab writes a store's
//! files whole and renames them into place, so a file being read is never
//! rewritten in place, and the map keeps the old file's pages. A file cut
//! short in place by another program while a query maps it would stop the
//! query with a bus error, as it would Polars, which maps files the same
//! way; the ranges asked for are checked against the file's length when
//! it is mapped.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use datafusion::object_store::local::LocalFileSystem;
use datafusion::object_store::path::Path;
use datafusion::object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore, PutMultipartOptions,
    PutOptions, PutPayload, PutResult, RenameOptions, Result,
};
use futures::stream::BoxStream;
use memmap2::Mmap;

/// The local file system, with scans' ranges served from memory maps.
#[derive(Debug, Default)]
pub(crate) struct MappedFiles {
    local: LocalFileSystem,
    /// Each file mapped so far, by its path: a query reads a file's ranges
    /// in many calls, and one map serves them all.
    maps: Mutex<HashMap<std::path::PathBuf, Arc<Mmap>>>,
}

impl fmt::Display for MappedFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MappedFiles({})", self.local)
    }
}

impl MappedFiles {
    /// The map of the file at `location`, made the first time it is asked for.
    fn map(&self, location: &Path) -> Result<Arc<Mmap>> {
        let path = self.local.path_to_filesystem(location)?;
        let mut maps = self.maps.lock().map_err(|_| generic("the map of mapped files is poisoned".into()))?;
        if let Some(map) = maps.get(&path) {
            return Ok(Arc::clone(map));
        }
        let file = File::open(&path).map_err(|e| generic(format!("opening {}: {e}", path.display())))?;
        // SAFETY: the map is read only, and the store's files are replaced
        // by renaming a new file into place, never rewritten in place (the
        // module's documentation says what happens otherwise).
        let map =
            Arc::new(unsafe { Mmap::map(&file) }.map_err(|e| generic(format!("mapping {}: {e}", path.display())))?);
        maps.insert(path, Arc::clone(&map));
        Ok(map)
    }
}

fn generic(message: String) -> datafusion::object_store::Error {
    datafusion::object_store::Error::Generic { store: "MappedFiles", source: message.into() }
}

/// `range` of `map` as bytes that keep the map alive, or an error naming
/// the file when the range runs past its end.
fn slice(map: &Arc<Mmap>, range: &Range<u64>, location: &Path) -> Result<bytes::Bytes> {
    let len = map.len() as u64;
    if range.start > range.end || range.end > len {
        return Err(generic(format!("{location}: bytes {}..{} asked for, the file has {len}", range.start, range.end)));
    }
    let whole = bytes::Bytes::from_owner(MapBytes(Arc::clone(map)));
    Ok(whole.slice(range.start as usize..range.end as usize))
}

/// A map as the owner of `Bytes`.
struct MapBytes(Arc<Mmap>);

impl AsRef<[u8]> for MapBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[async_trait]
impl ObjectStore for MappedFiles {
    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<bytes::Bytes>> {
        let map = self.map(location)?;
        ranges.iter().map(|range| slice(&map, range, location)).collect()
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.local.get_opts(location, options).await
    }

    async fn put_opts(&self, location: &Path, payload: PutPayload, options: PutOptions) -> Result<PutResult> {
        self.local.put_opts(location, payload, options).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        options: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.local.put_multipart_opts(location, options).await
    }

    fn delete_stream(&self, locations: BoxStream<'static, Result<Path>>) -> BoxStream<'static, Result<Path>> {
        self.local.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.local.list(prefix)
    }

    fn list_with_offset(&self, prefix: Option<&Path>, offset: &Path) -> BoxStream<'static, Result<ObjectMeta>> {
        self.local.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.local.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.local.copy_opts(from, to, options).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        self.local.rename_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use datafusion::object_store::ObjectStoreExt;

    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().build().unwrap()
    }

    /// The bytes of ranges worked out by hand on a 300-byte file (byte i is
    /// i mod 251), the same as `object_store`'s local store reads, an
    /// empty range included; a range past the end is an error naming the
    /// file and the length.
    #[test]
    fn ranges_are_the_files_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.parquet");
        let content: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&file, &content).unwrap();
        let location = Path::from_filesystem_path(&file).unwrap();
        let mapped = MappedFiles::default();
        let ranges = [0..3, 250..253, 299..300, 10..10, 0..300];
        let got = runtime().block_on(mapped.get_ranges(&location, &ranges)).unwrap();
        assert_eq!(got[0].as_ref(), [0, 1, 2]);
        assert_eq!(got[1].as_ref(), [250, 0, 1]);
        assert_eq!(got[2].as_ref(), [48]);
        assert!(got[3].is_empty());
        assert_eq!(got[4].as_ref(), content.as_slice());
        let local = runtime().block_on(LocalFileSystem::new().get_ranges(&location, &ranges)).unwrap();
        assert_eq!(got, local);
        // The footer and whole-file reads go to the local store.
        assert_eq!(runtime().block_on(mapped.get_range(&location, 297..300)).unwrap().as_ref(), [46, 47, 48]);

        let past = runtime()
            .block_on(mapped.get_ranges(&location, std::slice::from_ref(&(290..301))))
            .unwrap_err()
            .to_string();
        assert!(past.contains("t.parquet") && past.contains("bytes 290..301") && past.contains("has 300"), "{past}");
    }

    /// A file replaced by renaming another into place while it is mapped
    /// (as tracelab writes a store's files): the map keeps serving the
    /// bytes it mapped, and a new store (the next query) reads the new file.
    #[test]
    fn a_file_replaced_by_a_rename_keeps_its_mapped_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.parquet");
        std::fs::write(&file, b"old bytes").unwrap();
        let location = Path::from_filesystem_path(&file).unwrap();
        let mapped = MappedFiles::default();
        let before = runtime().block_on(mapped.get_ranges(&location, std::slice::from_ref(&(0..3)))).unwrap();
        std::fs::write(dir.path().join("new"), b"NEW BYTES").unwrap();
        std::fs::rename(dir.path().join("new"), &file).unwrap();
        let after = runtime().block_on(mapped.get_ranges(&location, std::slice::from_ref(&(4..9)))).unwrap();
        assert_eq!((before[0].as_ref(), after[0].as_ref()), (&b"old"[..], &b"bytes"[..]));
        let next =
            runtime().block_on(MappedFiles::default().get_ranges(&location, std::slice::from_ref(&(0..3)))).unwrap();
        assert_eq!(next[0].as_ref(), b"NEW");
    }
}
