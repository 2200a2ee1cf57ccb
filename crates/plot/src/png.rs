//! A minimal palette PNG encoder (8-bit indexed, no interlace) and base64,
//! for large heat maps: one pixel per cell embedded as a data URI keeps a
//! 300 x 168 map near 50 kB, where one `<rect>` per cell took 3.5 MB.
//! Deterministic: fixed chunk layout, zlib from the pinned flate2 at a fixed
//! level, no timestamps or other metadata chunks.

use std::io::Write;

use flate2::write::ZlibEncoder;
use flate2::{Compression, Crc};

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'];

/// `pixels[y * width + x]` indexes `palette` (at most 256 colours).
pub(crate) fn indexed(width: u32, height: u32, palette: &[(u8, u8, u8)], pixels: &[u8]) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    // Bit depth 8, colour type 3 (indexed), deflate, adaptive filters, no interlace.
    ihdr.extend([8, 3, 0, 0, 0]);
    chunk(&mut out, *b"IHDR", &ihdr);
    let plte: Vec<u8> = palette.iter().flat_map(|&(r, g, b)| [r, g, b]).collect();
    chunk(&mut out, *b"PLTE", &plte);
    chunk(&mut out, *b"IDAT", &deflate(width as usize, pixels));
    chunk(&mut out, *b"IEND", &[]);
    out
}

/// Each scanline prefixed with filter type 0 (none), zlib-compressed.
fn deflate(width: usize, pixels: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(pixels.len() + pixels.len() / width.max(1) + 1);
    for line in pixels.chunks(width.max(1)) {
        raw.push(0);
        raw.extend_from_slice(line);
    }
    let mut z = ZlibEncoder::new(Vec::new(), Compression::new(9));
    // Writing to a Vec cannot fail.
    let _ = z.write_all(&raw);
    z.finish().unwrap_or_default()
}

/// Length, type, data, CRC-32 of type and data.
fn chunk(out: &mut Vec<u8>, kind: [u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    out.extend(kind);
    out.extend(data);
    let mut crc = Crc::new();
    crc.update(&kind);
    crc.update(data);
    out.extend(crc.sum().to_be_bytes());
}

/// Standard base64 with padding.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let b = [group[0], *group.get(1).unwrap_or(&0), *group.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= group.len() {
                s.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn base64_matches_rfc_4648_examples() {
        // RFC 4648 section 10 test vectors.
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn a_two_by_two_image_has_the_png_layout() {
        let png = indexed(2, 2, &[(0, 0, 0), (255, 255, 255)], &[0, 1, 1, 0]);
        assert_eq!(png[..8], SIGNATURE);
        // IHDR: length 13, then width 2 and height 2 as big-endian u32.
        assert_eq!(png[8..16], [0, 0, 0, 13, b'I', b'H', b'D', b'R']);
        assert_eq!(png[16..24], [0, 0, 0, 2, 0, 0, 0, 2]);
        // Every PNG ends with the empty IEND chunk, whose CRC is the
        // well-known AE 42 60 82.
        assert_eq!(png[png.len() - 12..], [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]);
        // PLTE holds the two colours; IDAT inflates to filter byte 0 + indices per row.
        let plte = 8 + 25;
        assert_eq!(png[plte..plte + 14], [0, 0, 0, 6, b'P', b'L', b'T', b'E', 0, 0, 0, 255, 255, 255]);
        let idat = plte + 12 + 6;
        let len = u32::from_be_bytes(png[idat..idat + 4].try_into().unwrap()) as usize;
        assert_eq!(&png[idat + 4..idat + 8], b"IDAT");
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(&png[idat + 8..idat + 8 + len]).read_to_end(&mut raw).unwrap();
        assert_eq!(raw, [0, 0, 1, 0, 1, 0]);
    }
}
