//! Reads an input file on a thread of its own: the raw bytes are hashed
//! (SHA-256, for the manifest), counted (for the progress bar) and, for a
//! `.tar.gz`, inflated there, and handed to the parsing thread in 1 MiB
//! chunks through a bounded channel. Hashing and inflating were a tenth of
//! the parsing thread's work, which is the serial part of ingest.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use super::hashing::Hashing;

const CHUNK: usize = 1 << 20;
/// Chunks in flight: enough to ride out a slow row group, little memory.
const DEPTH: usize = 4;

/// The file's bytes (inflated if asked), as a `Read`.
pub struct Prefetch {
    rx: Option<Receiver<io::Result<Vec<u8>>>>,
    chunk: Vec<u8>,
    pos: usize,
    worker: Option<JoinHandle<io::Result<(u64, String)>>>,
}

impl Prefetch {
    /// Starts reading `path`; `gunzip` inflates a gzip stream.
    pub fn spawn(path: &Path, gunzip: bool, tick: Box<dyn FnMut(u64) + Send>) -> io::Result<Prefetch> {
        let file = File::open(path)?;
        let (tx, rx) = sync_channel(DEPTH);
        let worker = std::thread::Builder::new().name("tl-read".into()).spawn(move || {
            let mut hashing = Hashing::new(BufReader::with_capacity(CHUNK, file), tick);
            let result = if gunzip {
                // All members: a valid gzip may be several concatenated
                // (GzDecoder stops silently after the first).
                pump(&mut flate2::read::MultiGzDecoder::new(&mut hashing), &tx)
            } else {
                pump(&mut hashing, &tx)
            };
            if let Err(e) = result {
                // The parser sees the error where the data stops.
                let _ = tx.send(Err(io::Error::new(e.kind(), e.to_string())));
                return Err(e);
            }
            drop(tx);
            hashing.finish()
        })?;
        Ok(Prefetch { rx: Some(rx), chunk: Vec::new(), pos: 0, worker: Some(worker) })
    }

    /// Waits for the reading thread: bytes read from disk and their SHA-256.
    pub fn finish(mut self) -> io::Result<(u64, String)> {
        // Whatever the parser did not consume is still hashed by the thread.
        drop(self.rx.take());
        self.worker.take().expect("worker").join().expect("reading thread panicked")
    }
}

/// Sends `reader`'s bytes in chunks until EOF or until nobody listens.
fn pump(reader: &mut dyn Read, tx: &std::sync::mpsc::SyncSender<io::Result<Vec<u8>>>) -> io::Result<()> {
    let mut listening = true;
    loop {
        let mut buf = vec![0; CHUNK];
        let mut n = 0;
        while n < CHUNK {
            match reader.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if n == 0 {
            return Ok(());
        }
        buf.truncate(n);
        if listening && tx.send(Ok(buf)).is_err() {
            listening = false;
        }
    }
}

impl Read for Prefetch {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.chunk.len() {
            let next = self.rx.as_ref().and_then(|rx| rx.recv().ok());
            match next {
                None => return Ok(0),
                Some(Err(e)) => return Err(e),
                Some(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.pos = 0;
                }
            }
        }
        let n = out.len().min(self.chunk.len() - self.pos);
        out[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn delivers_every_byte_and_hashes_the_raw_file() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..3 * CHUNK + 123).map(|i| (i % 251) as u8).collect();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, &data).unwrap();
        let mut p = Prefetch::spawn(&plain, false, Box::new(|_| {})).unwrap();
        let mut got = Vec::new();
        p.read_to_end(&mut got).unwrap();
        let (bytes, sha) = p.finish().unwrap();
        assert!(got == data);
        assert_eq!(bytes, data.len() as u64);
        assert_eq!(sha, super::super::source::sha256_file(&plain).unwrap());

        let gz = dir.path().join("data.gz");
        let mut enc = flate2::write::GzEncoder::new(File::create(&gz).unwrap(), flate2::Compression::fast());
        enc.write_all(&data).unwrap();
        enc.finish().unwrap();
        let mut p = Prefetch::spawn(&gz, true, Box::new(|_| {})).unwrap();
        let mut got = Vec::new();
        p.read_to_end(&mut got).unwrap();
        let (bytes, _) = p.finish().unwrap();
        assert!(got == data, "inflated bytes");
        assert_eq!(bytes, std::fs::metadata(&gz).unwrap().len(), "the hash covers the compressed file");
    }

    #[test]
    fn a_consumer_that_stops_early_still_gets_the_whole_file_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 10 * CHUNK]).unwrap();
        let mut p = Prefetch::spawn(&path, false, Box::new(|_| {})).unwrap();
        let mut first = [0u8; 10];
        p.read_exact(&mut first).unwrap();
        assert_eq!(p.finish().unwrap().0, 10 * CHUNK as u64);
    }
}
