//! Context the user attaches to the next message: editor selections and
//! preview images.
//!
//! Attachments live only in the composer until a send. At Send every preview
//! is captured again from the tab the message goes to (same capture mode), so
//! the model sees the document as it is now, not as it was when the chip was
//! added. The model gets the full payload; the stored chat keeps only a
//! bounded copy (selection text with its file, at most two small thumbnails).

use protocol::active_file::ActiveEditorFile;
use protocol::js;
use protocol::limits;
use serde_json::{Map, Value, json};

/// Which Context-menu entry was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContextKind {
    Selection,
    Preview,
    OpenedImage,
}

/// How a preview image was taken; a refresh repeats the same request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaptureMode {
    /// The Typst render canvas ("Preview screenshot").
    Canvas,
    /// The image file open in the preview column ("Opened image file").
    Asset,
    /// No preference: the opened image when it is an asset, else the canvas
    /// (the page's "Add image to agent" button).
    Auto,
}

impl CaptureMode {
    /// The `GET_PREVIEW` payload for this mode.
    pub(crate) fn request(self, tab_id: Option<u64>) -> Value {
        let mut payload = Map::new();
        match self {
            CaptureMode::Canvas => {
                payload.insert("preferTypstCanvas".to_owned(), json!(true));
            }
            CaptureMode::Asset => {
                payload.insert("preferAssetImage".to_owned(), json!(true));
            }
            CaptureMode::Auto => {}
        }
        if let Some(tab_id) = tab_id {
            payload.insert("tabId".to_owned(), json!(tab_id));
        }
        Value::Object(payload)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SelectionAttachment {
    pub(crate) id: String,
    pub(crate) text: String,
    /// The file that was open when the text was selected.
    pub(crate) active_file: Option<ActiveEditorFile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreviewAttachment {
    pub(crate) id: String,
    pub(crate) data_url: String,
    pub(crate) capture_mode: CaptureMode,
}

/// Why an image cannot be attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidPreview;

impl std::fmt::Display for InvalidPreview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The image must be a PNG, JPEG or WebP data URL of at most {} MiB.",
            limits::MAX_PREVIEW_DATA_URL_CHARS / (1024 * 1024)
        )
    }
}

/// `data:image/(png|jpeg|webp);base64,…` within the preview bound.
pub(crate) fn is_live_preview_data_url(value: &str) -> bool {
    if js::utf16_len(value) > limits::MAX_PREVIEW_DATA_URL_CHARS as usize {
        return false;
    }
    let lower_head: String = value.chars().take(24).collect::<String>().to_ascii_lowercase();
    let body = ["png", "jpeg", "webp"].iter().find_map(|kind| {
        let prefix = format!("data:image/{kind};base64,");
        lower_head
            .starts_with(&prefix)
            .then(|| value.get(prefix.len()..))
            .flatten()
    });
    body.is_some_and(|b| {
        !b.is_empty()
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'=')
    })
}

/// The composer's attachments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Attachments {
    pub(crate) selections: Vec<SelectionAttachment>,
    pub(crate) previews: Vec<PreviewAttachment>,
}

impl Attachments {
    /// Adds a selection (trimmed, bounded); `None` when it is blank.
    pub(crate) fn add_selection(
        &mut self,
        id: String,
        text: &str,
        active_file: Option<&Value>,
    ) -> Option<&SelectionAttachment> {
        let bounded = js::js_trim(js::truncate_utf16(
            js::js_trim(text),
            limits::MAX_PAGE_SELECTION_CHARS as usize,
        ));
        if bounded.is_empty() {
            return None;
        }
        self.selections.push(SelectionAttachment {
            id,
            text: bounded.to_owned(),
            active_file: active_file.and_then(ActiveEditorFile::normalize),
        });
        self.selections.last()
    }

    pub(crate) fn add_preview(
        &mut self,
        id: String,
        data_url: &str,
        capture_mode: CaptureMode,
    ) -> Result<(), InvalidPreview> {
        if !is_live_preview_data_url(data_url) {
            return Err(InvalidPreview);
        }
        self.previews.push(PreviewAttachment {
            id,
            data_url: data_url.to_owned(),
            capture_mode,
        });
        Ok(())
    }

    /// Removes the selection or preview with `id`.
    pub(crate) fn remove(&mut self, id: &str) {
        self.selections.retain(|s| s.id != id);
        self.previews.retain(|p| p.id != id);
    }

    pub(crate) fn clear(&mut self) {
        *self = Attachments::default();
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.selections.is_empty() && self.previews.is_empty()
    }

    /// Replaces preview `id`'s image with a fresh capture.
    pub(crate) fn refresh_preview(&mut self, id: &str, data_url: &str) -> Result<(), InvalidPreview> {
        if !is_live_preview_data_url(data_url) {
            return Err(InvalidPreview);
        }
        if let Some(preview) = self.previews.iter_mut().find(|p| p.id == id) {
            preview.data_url = data_url.to_owned();
        }
        Ok(())
    }

    /// The `attachments` of `AI_STREAM_START`.
    pub(crate) fn model_payload(&self) -> Map<String, Value> {
        let selections: Vec<Value> = self
            .selections
            .iter()
            .map(|s| {
                let mut item = json!({ "selectedText": s.text });
                if let (Some(file), Some(map)) = (&s.active_file, item.as_object_mut()) {
                    map.insert("activeFile".to_owned(), file.to_value());
                }
                item
            })
            .collect();
        let previews: Vec<Value> = self
            .previews
            .iter()
            .filter(|p| is_live_preview_data_url(&p.data_url))
            .map(|p| json!({ "dataUrl": p.data_url }))
            .collect();
        let mut payload = Map::new();
        if !selections.is_empty() {
            payload.insert("selections".to_owned(), Value::Array(selections));
        }
        if !previews.is_empty() {
            payload.insert("previews".to_owned(), Value::Array(previews));
        }
        payload
    }

    /// The data URLs to turn into stored thumbnails (at most two).
    pub(crate) fn previews_to_keep(&self) -> Vec<String> {
        self.previews
            .iter()
            .filter(|p| is_live_preview_data_url(&p.data_url))
            .take(limits::MAX_PERSISTED_PREVIEWS_PER_MESSAGE as usize)
            .map(|p| p.data_url.clone())
            .collect()
    }

    /// The `sentAttachments` stored with the user message, or `None` when
    /// nothing was attached. `thumbnails` are the results for
    /// [`Attachments::previews_to_keep`].
    pub(crate) fn history_snapshot(&self, thumbnails: Vec<Value>) -> Option<Value> {
        let selections: Vec<Value> = self
            .selections
            .iter()
            .map(|s| {
                let mut item = json!({ "text": s.text });
                if let (Some(file), Some(map)) = (&s.active_file, item.as_object_mut()) {
                    map.insert("fileLabel".to_owned(), json!(file.relative_path));
                }
                item
            })
            .collect();
        if selections.is_empty() && thumbnails.is_empty() {
            return None;
        }
        Some(json!({ "selections": selections, "previews": thumbnails }))
    }
}

/// Characters of selection text a chip shows.
pub(crate) const CHIP_PREVIEW_CHARS: usize = 42;

/// `Selection N[ · file]: first words…` (`index` counts from 0).
pub(crate) fn selection_chip_label(index: usize, selection: &SelectionAttachment) -> String {
    let collapsed = js::collapse_whitespace(&selection.text);
    let preview = js::truncate_utf16(&collapsed, CHIP_PREVIEW_CHARS);
    let file = selection
        .active_file
        .as_ref()
        .map(|f| format!(" · {}", f.relative_path))
        .unwrap_or_default();
    let ellipsis = if js::utf16_len(&selection.text) > CHIP_PREVIEW_CHARS {
        "…"
    } else {
        ""
    };
    if preview.is_empty() {
        format!("Selection {}{file}", index + 1)
    } else {
        format!("Selection {}{file}: {preview}{ellipsis}", index + 1)
    }
}

/// Stored thumbnails: the longest side and how a too-large one shrinks.
pub(crate) const THUMBNAIL_MAX_SIDE: f64 = 256.0;
pub(crate) const THUMBNAIL_ATTEMPTS: usize = 6;
pub(crate) const THUMBNAIL_SHRINK: f64 = 0.7;
pub(crate) const THUMBNAIL_QUALITIES: [f64; 3] = [0.8, 0.65, 0.5];

/// The canvas sizes tried, in order, for an image of `width`×`height`.
pub(crate) fn thumbnail_sizes(width: u32, height: u32) -> Vec<(u32, u32)> {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let scale = (THUMBNAIL_MAX_SIDE / w.max(h)).min(1.0);
    let mut size = ((w * scale).round().max(1.0), (h * scale).round().max(1.0));
    let mut sizes = Vec::with_capacity(THUMBNAIL_ATTEMPTS);
    for _ in 0..THUMBNAIL_ATTEMPTS {
        // Both sides are between 1 and 256 here.
        sizes.push((size.0 as u32, size.1 as u32));
        size = (
            (size.0 * THUMBNAIL_SHRINK).floor().max(1.0),
            (size.1 * THUMBNAIL_SHRINK).floor().max(1.0),
        );
    }
    sizes
}

/// A stored thumbnail.
pub(crate) fn thumbnail_record(data_url: &str, width: u32, height: u32) -> Value {
    json!({ "dataUrl": data_url, "width": width, "height": height, "mimeType": "image/webp", "thumbnail": true })
}

/// A preview the stored chat could not keep, with the reason.
pub(crate) fn omitted_thumbnail(reason: ThumbnailFailure) -> Value {
    let reason = match reason {
        ThumbnailFailure::Format => "The preview was not stored with the chat: its image format is not supported.",
        ThumbnailFailure::TooLarge => {
            "The preview was not stored with the chat: no small enough thumbnail could be made."
        }
        ThumbnailFailure::Decode => "The preview was not stored with the chat: the image could not be read.",
    };
    json!({ "omitted": true, "reason": reason })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThumbnailFailure {
    Format,
    TooLarge,
    Decode,
}

/// Whether a thumbnail data URL fits the stored-preview bound.
pub(crate) fn thumbnail_fits(data_url: &str) -> bool {
    js::utf16_len(data_url) <= limits::MAX_PERSISTED_PREVIEW_CHARS as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &str = "data:image/png;base64,iVBORw0KGgo=";

    fn file() -> Value {
        json!({"projectLabel": "test", "relativePath": "ref.bib", "basename": "ref.bib",
               "source": "header_breadcrumb", "confidence": "high"})
    }

    #[test]
    fn preview_urls_must_be_bounded_base64_images() {
        assert!(is_live_preview_data_url(PNG));
        assert!(is_live_preview_data_url("DATA:IMAGE/WEBP;BASE64,AAAA"));
        assert!(is_live_preview_data_url("data:image/jpeg;base64,/9j/"));
        assert!(!is_live_preview_data_url("data:image/gif;base64,R0lG"));
        assert!(!is_live_preview_data_url("data:image/svg+xml;base64,PHN2Zz4="));
        assert!(!is_live_preview_data_url("data:image/png;base64,"));
        assert!(!is_live_preview_data_url("data:image/png;base64,ab cd"));
        assert!(!is_live_preview_data_url("https://example.com/a.png"));
        let huge = format!("data:image/png;base64,{}", "A".repeat(2_097_152));
        assert!(!is_live_preview_data_url(&huge));
    }

    #[test]
    fn state_payload_refresh_and_history_snapshot() {
        let mut attachments = Attachments::default();
        assert!(attachments.add_selection("s1".to_owned(), "   ", None).is_none());
        attachments.add_selection("s1".to_owned(), "  selected  ", Some(&file()));
        attachments
            .add_preview("p1".to_owned(), PNG, CaptureMode::Canvas)
            .expect("png");
        assert_eq!(
            attachments.add_preview("p2".to_owned(), "data:text/html,x", CaptureMode::Canvas),
            Err(InvalidPreview)
        );
        assert_eq!(
            Value::Object(attachments.model_payload()),
            json!({
                "selections": [{"selectedText": "selected", "activeFile": file()}],
                "previews": [{"dataUrl": PNG}]
            })
        );
        attachments
            .refresh_preview("p1", "data:image/webp;base64,UklG")
            .expect("refresh");
        assert_eq!(attachments.previews[0].data_url, "data:image/webp;base64,UklG");
        assert_eq!(attachments.refresh_preview("p1", "nope"), Err(InvalidPreview));
        assert_eq!(attachments.previews_to_keep(), ["data:image/webp;base64,UklG"]);
        let thumb = thumbnail_record("data:image/webp;base64,T", 10, 5);
        assert_eq!(
            attachments.history_snapshot(vec![thumb.clone()]),
            Some(json!({"selections": [{"text": "selected", "fileLabel": "ref.bib"}], "previews": [thumb]}))
        );
        attachments.remove("s1");
        attachments.remove("p1");
        assert!(attachments.is_empty());
        assert_eq!(attachments.history_snapshot(Vec::new()), None);
        assert!(attachments.model_payload().is_empty());
    }

    #[test]
    fn selections_are_capped_and_only_two_thumbnails_are_kept() {
        let mut attachments = Attachments::default();
        let long = "x".repeat(70_000);
        attachments.add_selection("s".to_owned(), &long, Some(&json!({"relativePath": "../bad"})));
        assert_eq!(attachments.selections[0].text.len(), 65_536);
        assert_eq!(attachments.selections[0].active_file, None);
        for id in ["a", "b", "c"] {
            attachments
                .add_preview(id.to_owned(), PNG, CaptureMode::Canvas)
                .expect("png");
        }
        assert_eq!(attachments.previews_to_keep().len(), 2);
        assert_eq!(
            attachments.model_payload()["previews"].as_array().map(Vec::len),
            Some(3)
        );
    }

    #[test]
    fn capture_modes_repeat_their_request() {
        assert_eq!(
            CaptureMode::Canvas.request(Some(9)),
            json!({"preferTypstCanvas": true, "tabId": 9})
        );
        assert_eq!(CaptureMode::Asset.request(None), json!({"preferAssetImage": true}));
        assert_eq!(CaptureMode::Auto.request(Some(4)), json!({"tabId": 4}));
    }

    #[test]
    fn chip_labels_name_the_file_and_shorten_the_text() {
        let selection = SelectionAttachment {
            id: "s".to_owned(),
            text: "A   long\n selection that goes on for more than forty-two characters".to_owned(),
            active_file: ActiveEditorFile::normalize(&file()),
        };
        assert_eq!(
            selection_chip_label(0, &selection),
            "Selection 1 · ref.bib: A long selection that goes on for more tha…"
        );
        let short = SelectionAttachment {
            id: "t".to_owned(),
            text: "short".to_owned(),
            active_file: None,
        };
        assert_eq!(selection_chip_label(2, &short), "Selection 3: short");
    }

    #[test]
    fn thumbnail_sizes_start_at_256_and_shrink() {
        let sizes = thumbnail_sizes(1024, 512);
        assert_eq!(sizes.len(), 6);
        assert_eq!(sizes[0], (256, 128));
        assert_eq!(sizes[1], (179, 89));
        assert_eq!(thumbnail_sizes(100, 40)[0], (100, 40), "small images are not enlarged");
        assert_eq!(thumbnail_sizes(0, 0)[0], (1, 1));
        assert!(thumbnail_sizes(3, 3000).iter().all(|(w, h)| *w >= 1 && *h >= 1));
        assert!(thumbnail_fits("data:image/webp;base64,AAAA"));
        assert_eq!(omitted_thumbnail(ThumbnailFailure::Format)["omitted"], json!(true));
    }
}
