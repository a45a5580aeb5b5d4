//! Images: their size checked before anything is decoded, a thumbnail for the apps to show
//! inline, and, for a visitor's photo, a copy without its metadata. A phone's photo carries
//! where it was taken (EXIF GPS); a visitor sending a screenshot of a problem does not mean to
//! tell a company where they live. Re-encoding keeps the pixels (turned upright as the EXIF
//! orientation said) and nothing else: `image` writes no metadata.
//!
//! Decoding costs memory in proportion to pixels, so images are capped at [`MAX_SIDE`] and
//! [`MAX_PIXELS`], read from the header first, and the caller runs this on a blocking thread
//! under a small semaphore.

use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{DynamicImage, ImageDecoder, ImageReader, Limits};

use super::sniff::ImageFormat;

/// The longest side an image may have.
pub const MAX_SIDE: u32 = 12_000;
/// The most pixels an image may have (40 megapixels: 160 MB decoded).
pub const MAX_PIXELS: u64 = 40_000_000;
/// A thumbnail's longest side.
pub const THUMBNAIL_SIDE: u32 = 320;

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error(
        "images may be at most {MAX_SIDE} pixels a side and {MAX_PIXELS} pixels in all; this one is {0}x{1}"
    )]
    TooLarge(u32, u32),
    #[error("the image could not be read: {0}")]
    Unreadable(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// What came of an image.
pub struct Processed {
    /// Width and height as displayed (after orientation).
    pub dimensions: (u32, u32),
    pub thumbnail: Vec<u8>,
    pub thumbnail_type: &'static str,
    /// The file to store instead of the upload, without metadata (a visitor's photo).
    pub cleaned: Option<std::fs::File>,
}

/// Checks the image in `file` (from its start), makes its thumbnail and, when `strip`, a copy
/// without metadata. Blocking.
pub fn process(
    file: &mut std::fs::File,
    format: ImageFormat,
    strip: bool,
) -> Result<Processed, ImageError> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = ImageReader::with_format(BufReader::new(file.try_clone()?), codec(format));
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| unreadable(&e))?;
    let (width, height) = decoder.dimensions();
    if width > MAX_SIDE || height > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ImageError::TooLarge(width, height));
    }
    let orientation = decoder.orientation().map_err(|e| unreadable(&e))?;
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| unreadable(&e))?;
    image.apply_orientation(orientation);
    let dimensions = (image.width(), image.height());

    let thumbnail = image.thumbnail(THUMBNAIL_SIDE, THUMBNAIL_SIDE);
    let mut thumb = Vec::new();
    let thumbnail_type = if thumbnail.color().has_alpha() {
        thumbnail
            .write_with_encoder(PngEncoder::new(&mut thumb))
            .map_err(|e| unreadable(&e))?;
        "image/png"
    } else {
        thumbnail
            .to_rgb8()
            .write_with_encoder(JpegEncoder::new_with_quality(&mut thumb, 80))
            .map_err(|e| unreadable(&e))?;
        "image/jpeg"
    };

    // A GIF carries no EXIF, and re-encoding would drop its animation.
    let cleaned = if strip && format != ImageFormat::Gif {
        let out = tempfile::tempfile()?;
        let mut writer = BufWriter::new(out.try_clone()?);
        match format {
            ImageFormat::Jpeg => image
                .to_rgb8()
                .write_with_encoder(JpegEncoder::new_with_quality(&mut writer, 90)),
            ImageFormat::Png => image.write_with_encoder(PngEncoder::new(&mut writer)),
            ImageFormat::WebP | ImageFormat::Gif => image
                .to_rgba8()
                .write_with_encoder(WebPEncoder::new_lossless(&mut writer)),
        }
        .map_err(|e| unreadable(&e))?;
        writer.flush()?;
        Some(out)
    } else {
        None
    };
    Ok(Processed {
        dimensions,
        thumbnail: thumb,
        thumbnail_type,
        cleaned,
    })
}

fn codec(format: ImageFormat) -> image::ImageFormat {
    match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Gif => image::ImageFormat::Gif,
        ImageFormat::WebP => image::ImageFormat::WebP,
    }
}

fn unreadable(e: &image::ImageError) -> ImageError {
    match e {
        image::ImageError::Limits(_) => ImageError::TooLarge(0, 0),
        e => ImageError::Unreadable(e.to_string()),
    }
}

/// Whether `bytes` hold an EXIF block (JPEG APP1 `Exif`, PNG `eXIf`, WebP `EXIF`).
pub fn has_exif(bytes: &[u8]) -> bool {
    [&b"Exif\0\0"[..], b"eXIf", b"EXIF"]
        .iter()
        .any(|marker| bytes.windows(marker.len()).any(|w| w == *marker))
}

/// Reads a whole (small) file from its start.
pub fn read_all(file: &mut std::fs::File) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    use supportdesk_test_support::files::jpeg_with_gps;

    fn file_of(bytes: &[u8]) -> std::fs::File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        file
    }

    #[test]
    fn a_visitors_photo_loses_its_location_and_keeps_its_pixels() {
        let photo = jpeg_with_gps(640, 480);
        assert!(has_exif(&photo));
        let processed = process(&mut file_of(&photo), ImageFormat::Jpeg, true).unwrap();
        assert_eq!(processed.dimensions, (640, 480));
        let cleaned = read_all(&mut processed.cleaned.unwrap()).unwrap();
        assert!(!has_exif(&cleaned));
        let decoded = image::load_from_memory(&cleaned).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (640, 480));
        let thumb = image::load_from_memory(&processed.thumbnail).unwrap();
        assert_eq!((thumb.width(), thumb.height()), (320, 240));
    }

    #[test]
    fn an_agents_image_is_kept_as_sent() {
        let photo = jpeg_with_gps(64, 64);
        let processed = process(&mut file_of(&photo), ImageFormat::Jpeg, false).unwrap();
        assert!(processed.cleaned.is_none());
    }

    #[test]
    fn oversized_and_broken_images_are_refused() {
        // A PNG header claiming 20 000 x 20 000 pixels, and nothing after it.
        let mut png = Vec::new();
        DynamicImage::new_rgb8(1, 1)
            .write_with_encoder(PngEncoder::new(&mut png))
            .unwrap();
        png[16..20].copy_from_slice(&20_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&20_000u32.to_be_bytes());
        let crc = crc32fast::hash(&png[12..29]);
        png[29..33].copy_from_slice(&crc.to_be_bytes());
        assert!(matches!(
            process(&mut file_of(&png), ImageFormat::Png, false),
            Err(ImageError::TooLarge(..))
        ));
        assert!(matches!(
            process(
                &mut file_of(b"\x89PNG\r\n\x1a\nnot really"),
                ImageFormat::Png,
                false
            ),
            Err(ImageError::Unreadable(_))
        ));
    }
}
