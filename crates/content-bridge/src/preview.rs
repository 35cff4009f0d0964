//! `PAGE_GET_PREVIEW`: a rendered page or an opened image, as a data URL.
//!
//! The protocol crate checks the answer's shape: a `data:image/(png|jpeg|
//! webp);base64,` URL within the bridge's size bound and sides of 1–4096 px,
//! or an `{error}`. Because the image may be sent to a model, this module
//! also decodes the payload and reads the image header: the bytes must be the
//! declared format, and the header's dimensions must be the declared ones. A
//! page that answers with anything else gets `INVALID_PAGE_RESPONSE`.

use crate::request::PageError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use protocol::MessageType;
use protocol::page_response::{PagePreview as WirePreview, PageResponseData};
use serde_json::Value;

/// The image formats the bridge carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// `image/png`.
    Png,
    /// `image/jpeg`.
    Jpeg,
    /// `image/webp` (what the page encodes its captures as).
    Webp,
}

impl ImageFormat {
    /// The MIME type of the format.
    pub fn mime_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Webp => "image/webp",
        }
    }

    fn from_mime_type(mime: &str) -> Option<ImageFormat> {
        [ImageFormat::Png, ImageFormat::Jpeg, ImageFormat::Webp]
            .into_iter()
            .find(|format| format.mime_type().eq_ignore_ascii_case(mime))
    }

    fn from_header(kind: imagesize::ImageType) -> Option<ImageFormat> {
        match kind {
            imagesize::ImageType::Png => Some(ImageFormat::Png),
            imagesize::ImageType::Jpeg => Some(ImageFormat::Jpeg),
            imagesize::ImageType::Webp => Some(ImageFormat::Webp),
            _ => None,
        }
    }
}

/// A checked preview image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewImage {
    /// The data URL exactly as the page sent it.
    pub data_url: String,
    /// The format the image's own header declares (it matches the data URL's).
    pub format: ImageFormat,
    /// Width in pixels, as the header declares it.
    pub width: u32,
    /// Height in pixels, as the header declares it.
    pub height: u32,
    /// Size of the decoded image in bytes.
    pub byte_len: usize,
}

/// A checked `PAGE_GET_PREVIEW` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PagePreview {
    /// A captured image whose bytes are what it claims.
    Image(PreviewImage),
    /// The page had nothing to capture, or capturing failed; the text says
    /// why (e.g. "No Typst render canvas found").
    Unavailable {
        /// The page's reason.
        error: String,
    },
}

fn invalid(why: &str) -> PageError {
    PageError::invalid(format!("The page's preview image is not acceptable: {why}."))
}

impl PagePreview {
    /// Checks the page's `data`; an image is decoded and its header read.
    pub fn parse(data: &Value) -> Result<PagePreview, PageError> {
        let wire = match PageResponseData::parse(MessageType::PageGetPreview, data) {
            Ok(PageResponseData::Preview(wire)) => wire,
            Ok(_) => {
                return Err(PageError::invalid(
                    "The page answered a preview request with other data.",
                ));
            }
            Err(error) => return Err(PageError::invalid(error.message)),
        };
        match wire {
            WirePreview::Error { error } => Ok(PagePreview::Unavailable { error }),
            WirePreview::Image {
                data_url,
                width,
                height,
                mime_type,
            } => check_image(data_url, width, height, mime_type.as_deref()).map(PagePreview::Image),
        }
    }
}

fn check_image(data_url: String, width: u64, height: u64, mime_type: Option<&str>) -> Result<PreviewImage, PageError> {
    // The protocol check guarantees `data:<mime>;base64,<payload>`.
    let (head, payload) = data_url
        .split_once(',')
        .ok_or_else(|| invalid("the data URL has no payload"))?;
    // Case-insensitive, as the protocol check is.
    let declared = head
        .get("data:".len()..)
        .and_then(|media| {
            let split = media.len().checked_sub(";base64".len())?;
            let (mime, marker) = (media.get(..split)?, media.get(split..)?);
            marker.eq_ignore_ascii_case(";base64").then_some(mime)
        })
        .and_then(ImageFormat::from_mime_type)
        .ok_or_else(|| invalid("the data URL's media type is not an image format of the bridge"))?;
    if let Some(mime) = mime_type
        && ImageFormat::from_mime_type(mime) != Some(declared)
    {
        return Err(invalid("mimeType differs from the data URL's media type"));
    }
    let bytes = STANDARD
        .decode(payload)
        .map_err(|_| invalid("the payload is not valid base64"))?;
    let actual = imagesize::image_type(&bytes)
        .ok()
        .and_then(ImageFormat::from_header)
        .ok_or_else(|| invalid("the payload is not a PNG, JPEG or WebP image"))?;
    if actual != declared {
        return Err(invalid("the payload's format differs from the declared one"));
    }
    let size = imagesize::blob_size(&bytes).map_err(|_| invalid("the image header is unreadable"))?;
    if size.width as u64 != width || size.height as u64 != height {
        return Err(invalid("the image's dimensions differ from width and height"));
    }
    Ok(PreviewImage {
        data_url,
        format: declared,
        width: u32::try_from(width).map_err(|_| invalid("width is out of range"))?,
        height: u32::try_from(height).map_err(|_| invalid("height is out of range"))?,
        byte_len: bytes.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A 3×2 red canvas encoded by Chromium's `toDataURL`.
    const PNG_3X2: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAEklEQVR4AWL6z8DwH4aZGJAAAAAA//+GpNPhAAAABklEQVQDAHTzBf+1yIrkAAAAAElFTkSuQmCC";
    const WEBP_3X2: &str = "data:image/webp;base64,UklGRiICAABXRUJQVlA4WAoAAAAgAAAAAgAAAQAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDggNAAAADACAJ0BKgMAAgAAwBIloAJ0ugH4AfgABGgAAP76IZf/d5qw03f1rf/1o5+uif60c/9ZWAA=";

    fn parse(value: Value) -> Result<PagePreview, String> {
        PagePreview::parse(&value).map_err(|e| e.code)
    }

    #[test]
    fn accepts_browser_encoded_images_with_their_real_dimensions() {
        for (url, format) in [(WEBP_3X2, ImageFormat::Webp), (PNG_3X2, ImageFormat::Png)] {
            let parsed = parse(json!({"dataUrl": url, "width": 3, "height": 2, "mimeType": format.mime_type()}));
            match parsed {
                Ok(PagePreview::Image(image)) => {
                    assert_eq!((image.format, image.width, image.height), (format, 3, 2));
                    assert!(image.byte_len > 0);
                }
                other => panic!("{format:?}: {other:?}"),
            }
        }
        let without_mime = parse(json!({"dataUrl": PNG_3X2, "width": 3, "height": 2}));
        assert!(matches!(without_mime, Ok(PagePreview::Image(_))));
    }

    #[test]
    fn refuses_images_that_are_not_what_they_claim() {
        let bad = "INVALID_PAGE_RESPONSE".to_owned();
        let relabelled = PNG_3X2.replace("image/png", "image/webp");
        let cases = [
            json!({"dataUrl": PNG_3X2, "width": 4, "height": 2}),
            json!({"dataUrl": PNG_3X2, "width": 3, "height": 3}),
            json!({"dataUrl": PNG_3X2, "width": 3, "height": 2, "mimeType": "image/webp"}),
            json!({"dataUrl": relabelled, "width": 3, "height": 2}),
            json!({"dataUrl": "data:image/png;base64,AAAA", "width": 1, "height": 1}),
            json!({"dataUrl": "data:image/png;base64,A=AA", "width": 1, "height": 1}),
            json!({"dataUrl": "data:image/png;base64,iVBORw0KGgo", "width": 1, "height": 1}),
            json!({"dataUrl": "https://example.com/a.png", "width": 1, "height": 1}),
            json!({"dataUrl": PNG_3X2, "width": 0, "height": 2}),
            json!({"width": 3, "height": 2}),
        ];
        for case in cases {
            assert_eq!(parse(case.clone()).map(|_| ()), Err(bad.clone()), "{case}");
        }
    }

    #[test]
    fn page_errors_are_answers_not_failures() {
        assert_eq!(
            parse(json!({"error": "No Typst render canvas found"})),
            Ok(PagePreview::Unavailable {
                error: "No Typst render canvas found".into()
            })
        );
    }
}
