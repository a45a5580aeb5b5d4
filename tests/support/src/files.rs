//! Files of each kind the attachment tests send: images (one carrying where it was taken),
//! a PDF, the start of a program.

use image::DynamicImage;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;

/// A PNG of `w`x`h` pixels (a screenshot).
pub fn png(w: u32, h: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    DynamicImage::new_rgb8(w, h)
        .write_with_encoder(PngEncoder::new(&mut bytes))
        .unwrap();
    bytes
}

/// A JPEG photo of `w`x`h` with an EXIF block giving where it was taken (GPS), inserted
/// after the start-of-image marker as a camera writes it.
pub fn jpeg_with_gps(w: u32, h: u32) -> Vec<u8> {
    let mut plain = Vec::new();
    DynamicImage::new_rgb8(w, h)
        .write_with_encoder(JpegEncoder::new_with_quality(&mut plain, 90))
        .unwrap();
    // TIFF, big-endian: IFD0 with GPSInfo (0x8825) -> a GPS IFD with GPSLatitudeRef = "N".
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&[0, 1, 0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0]);
    tiff.extend_from_slice(&[0, 1, 0, 1, 0, 2, 0, 0, 0, 2, b'N', 0, 0, 0, 0, 0, 0, 0]);
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let len = u16::try_from(app1.len() + 2).unwrap();
    let mut out = plain[..2].to_vec();
    out.extend_from_slice(&[0xff, 0xe1]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&plain[2..]);
    out
}

/// Whether a JPEG holds an EXIF block.
pub fn has_exif(bytes: &[u8]) -> bool {
    bytes.windows(6).any(|w| w == b"Exif\0\0")
}

/// A minimal PDF.
pub const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

/// The start of an x86-64 ELF executable, padded to 4 KiB.
pub fn elf() -> Vec<u8> {
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0\x01\0\0\0".to_vec();
    bytes.resize(4096, 0);
    bytes
}

/// Every file under `root` (dot files aside), as sorted paths relative to it.
pub fn files_under(root: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if !entry.file_name().to_string_lossy().starts_with('.') {
                found.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}
