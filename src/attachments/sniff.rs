//! What a file is, from its first bytes: never from its name or the client's `Content-Type`,
//! which the sender chooses. The type decides whether the file is taken at all, whether it
//! may be shown in a browser (images and PDFs) or only downloaded, and whether it gets a
//! thumbnail.
//!
//! Refused outright: programs and scripts, by their bytes (ELF, PE, Mach-O, Java classes,
//! Dalvik, WebAssembly, LLVM bitcode, COFF objects, Debian and RPM packages, `#!` scripts,
//! PHP) and by their name's extension (what a double-click would run on some system, whatever
//! the bytes). HTML and SVG, which could run script if a browser rendered them, are taken and
//! only ever served as downloads, like every type not shown inline.

/// How many leading bytes [`sniff`] reads.
pub const HEAD: usize = 8 * 1024;

/// A file's type, as sniffed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sniffed {
    pub content_type: String,
    pub kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An image browsers show and we can thumbnail (PNG, JPEG, GIF, WebP).
    Image(ImageFormat),
    /// A PDF: shown inline, with the `sandbox` policy every download has.
    Pdf,
    /// Anything else that is allowed: served as a download only.
    Download,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    WebP,
}

impl Kind {
    /// Whether a browser may render it (`Content-Disposition: inline`).
    pub fn inline(self) -> bool {
        matches!(self, Self::Image(_) | Self::Pdf)
    }
}

/// Why a file is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Its bytes are a program or script of this type.
    Content(String),
    /// Its name ends in an extension that runs when opened.
    Name(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Content(t) => write!(
                f,
                "files of type {t} (programs and scripts) are not accepted"
            ),
            Self::Name(ext) => write!(
                f,
                "files named .{ext} (programs and scripts) are not accepted"
            ),
        }
    }
}

/// Types sniffed from the bytes that are refused.
pub const REFUSED_TYPES: &[&str] = &[
    "application/x-executable",
    "application/vnd.microsoft.portable-executable",
    "application/x-msdownload",
    "application/x-mach-binary",
    "application/java",
    "application/vnd.android.dex",
    "application/vnd.android.dey",
    "application/wasm",
    "application/x-llvm",
    "application/x-coff",
    "application/vnd.debian.binary-package",
    "application/x-rpm",
    "text/x-shellscript",
    "application/x-httpd-php",
];

/// Name extensions that are refused whatever the bytes: what opening runs.
pub const REFUSED_EXTENSIONS: &[&str] = &[
    "exe", "dll", "com", "scr", "msi", "msp", "bat", "cmd", "ps1", "psm1", "vbs", "vbe", "js",
    "jse", "mjs", "wsf", "wsh", "hta", "cpl", "jar", "apk", "app", "deb", "rpm", "sh", "bash",
    "command", "pif", "reg", "lnk", "scf", "msc", "appimage", "run", "elf", "so", "dylib",
];

/// The type of a file whose first bytes are `head` (up to [`HEAD`]), named `name` by its
/// sender, or why it is refused.
pub fn sniff(head: &[u8], name: &str) -> Result<Sniffed, Refusal> {
    if let Some(ext) = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        && REFUSED_EXTENSIONS.contains(&ext.as_str())
    {
        return Err(Refusal::Name(ext));
    }
    let sniffed = of_bytes(head);
    if REFUSED_TYPES.contains(&sniffed.content_type.as_str()) {
        return Err(Refusal::Content(sniffed.content_type));
    }
    Ok(sniffed)
}

fn of_bytes(head: &[u8]) -> Sniffed {
    let download = |t: &str| Sniffed {
        content_type: t.to_owned(),
        kind: Kind::Download,
    };
    let image = |t: &str, format| Sniffed {
        content_type: t.to_owned(),
        kind: Kind::Image(format),
    };
    if head.starts_with(b"#!") {
        return download("text/x-shellscript");
    }
    // Programs by their first bytes, however short the rest: a loader reads no further.
    for (magic, program) in [
        (&b"\x7fELF"[..], "application/x-executable"),
        (b"MZ", "application/vnd.microsoft.portable-executable"),
        (b"\xfe\xed\xfa\xce", "application/x-mach-binary"),
        (b"\xfe\xed\xfa\xcf", "application/x-mach-binary"),
        (b"\xce\xfa\xed\xfe", "application/x-mach-binary"),
        (b"\xcf\xfa\xed\xfe", "application/x-mach-binary"),
        // Java classes and universal Mach-O binaries share this one.
        (b"\xca\xfe\xba\xbe", "application/java"),
        (b"\0asm", "application/wasm"),
        (b"dex\n", "application/vnd.android.dex"),
    ] {
        if head.starts_with(magic) {
            return download(program);
        }
    }
    if let Some(found) = infer::get(head) {
        return match found.mime_type() {
            "image/png" => image("image/png", ImageFormat::Png),
            "image/jpeg" => image("image/jpeg", ImageFormat::Jpeg),
            "image/gif" => image("image/gif", ImageFormat::Gif),
            "image/webp" => image("image/webp", ImageFormat::WebP),
            "application/pdf" => Sniffed {
                content_type: "application/pdf".to_owned(),
                kind: Kind::Pdf,
            },
            "text/html" => download("text/html"),
            "text/xml" if markup_is(head, b"<svg") => download("image/svg+xml"),
            other => download(other),
        };
    }
    if markup_is(head, b"<?php") {
        return download("application/x-httpd-php");
    }
    if markup_is(head, b"<svg") {
        return download("image/svg+xml");
    }
    if [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<body",
        b"<script",
        b"<iframe",
    ]
    .iter()
    .any(|tag| markup_is(head, tag))
    {
        return download("text/html");
    }
    if is_text(head) {
        return download("text/plain");
    }
    download("application/octet-stream")
}

/// Whether markup `tag` appears in the head (any case), as browsers sniffing HTML or SVG
/// would find it.
fn markup_is(head: &[u8], tag: &[u8]) -> bool {
    head.windows(tag.len())
        .any(|window| window.eq_ignore_ascii_case(tag))
}

/// Text: UTF-8 (a character cut at the end of the head allowed) without NULs.
fn is_text(head: &[u8]) -> bool {
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    const ELF: &[u8] = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0";

    #[test]
    fn images_and_pdfs_are_shown_inline() {
        let png = sniff(PNG, "shot.png").unwrap();
        assert_eq!(png.content_type, "image/png");
        assert!(png.kind.inline());
        let pdf = sniff(b"%PDF-1.7\n%\xe2\xe3", "a.pdf").unwrap();
        assert_eq!(pdf.kind, Kind::Pdf);
    }

    #[test]
    fn the_bytes_decide_not_the_name() {
        assert_eq!(
            sniff(ELF, "holiday.png"),
            Err(Refusal::Content("application/x-executable".into()))
        );
        assert!(matches!(
            sniff(b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff", "invoice.pdf"),
            Err(Refusal::Content(_))
        ));
        let png_named_txt = sniff(PNG, "notes.txt").unwrap();
        assert_eq!(png_named_txt.content_type, "image/png");
    }

    #[test]
    fn scripts_are_refused() {
        assert!(matches!(
            sniff(b"#!/bin/sh\nrm -rf /\n", "readme.txt"),
            Err(Refusal::Content(_))
        ));
        assert!(matches!(
            sniff(b"<?php echo 1;", "a.txt"),
            Err(Refusal::Content(_))
        ));
        assert_eq!(
            sniff(b"plain words", "setup.EXE"),
            Err(Refusal::Name("exe".into()))
        );
        assert_eq!(sniff(b"alert(1)", "x.js"), Err(Refusal::Name("js".into())));
    }

    #[test]
    fn html_and_svg_are_downloads() {
        let html = sniff(b"<!DOCTYPE html><html><script>alert(1)</script>", "a.png").unwrap();
        assert_eq!(html.content_type, "text/html");
        assert!(!html.kind.inline());
        let svg = sniff(
            b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"></svg>",
            "logo.png",
        )
        .unwrap();
        assert_eq!(svg.content_type, "image/svg+xml");
        assert!(!svg.kind.inline());
        let bare_svg = sniff(b"<svg onload=alert(1)>", "x.gif").unwrap();
        assert_eq!(bare_svg.content_type, "image/svg+xml");
    }

    #[test]
    fn text_and_unknown_bytes() {
        assert_eq!(
            sniff(b"a,b\n1,2\n", "data.csv").unwrap().content_type,
            "text/plain"
        );
        // A multi-byte character cut by the end of the head is still text.
        assert_eq!(
            sniff("caf\u{e9}".as_bytes().split_at(4).0, "a")
                .unwrap()
                .content_type,
            "text/plain"
        );
        let binary = sniff(&[0, 1, 2, 3, 0xff, 0xfe], "blob").unwrap();
        assert_eq!(binary.content_type, "application/octet-stream");
        assert!(!binary.kind.inline());
    }
}
