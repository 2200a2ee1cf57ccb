//! Counts and hashes (SHA-256, for the manifest) every byte read through a
//! reader. Both ways of reading an input use it: the whole-file hash of
//! `source` and the reading thread of `prefetch`, so it sits below both.

use std::io::{self, Read};

use sha2::{Digest, Sha256};

/// Counts and hashes every byte read through it.
pub struct Hashing<R> {
    inner: R,
    hasher: Sha256,
    bytes: u64,
    tick: Box<dyn FnMut(u64) + Send>,
}

impl<R: Read> Hashing<R> {
    pub fn new(inner: R, tick: Box<dyn FnMut(u64) + Send>) -> Self {
        Hashing { inner, hasher: Sha256::new(), bytes: 0, tick }
    }

    /// Reads what is left (archive padding, trailers) so the hash covers
    /// the whole file, and returns the hex digest.
    pub fn finish(mut self) -> io::Result<(u64, String)> {
        io::copy(&mut self, &mut io::sink())?;
        Ok((self.bytes, tracelab_store::manifest::hex(&self.hasher.finalize())))
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        (self.tick)(n as u64);
        Ok(n)
    }
}
