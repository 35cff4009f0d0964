//! `PAGE_GET_PROBE`: what the page can offer right now (an editor, a
//! selection, a rendered canvas, an opened image, the Improve panel). Tool
//! preflights wait until the capabilities they need are present.

use crate::request::PageError;
use protocol::MessageType;
use protocol::page_response::PageResponseData;
use serde_json::Value;

pub use protocol::page_response::PageProbe;

/// A page capability a tool may need before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// A CodeMirror editor was found.
    Editor,
    /// The editor's main selection is not empty.
    Selection,
    /// A Typst render canvas large enough to capture.
    TypstCanvas,
    /// An opened image asset in the preview column.
    PreviewImage,
    /// The Improve sidebar is shown.
    ImprovePanel,
}

impl Capability {
    /// The probe field's wire name (also shown as "missing" to the user).
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Editor => "editor",
            Capability::Selection => "selection",
            Capability::TypstCanvas => "typstCanvas",
            Capability::PreviewImage => "previewImage",
            Capability::ImprovePanel => "improvePanel",
        }
    }

    /// Whether the probe reports this capability.
    pub fn present_in(self, probe: &PageProbe) -> bool {
        match self {
            Capability::Editor => probe.editor,
            Capability::Selection => probe.selection,
            Capability::TypstCanvas => probe.typst_canvas,
            Capability::PreviewImage => probe.preview_image,
            Capability::ImprovePanel => probe.improve_panel,
        }
    }
}

/// The capabilities of `needed` the probe lacks, in the order given.
pub fn missing(probe: &PageProbe, needed: &[Capability]) -> Vec<Capability> {
    needed.iter().copied().filter(|cap| !cap.present_in(probe)).collect()
}

/// Reads a probe answer: exactly the five boolean fields, nothing else.
pub fn parse_probe(data: &Value) -> Result<PageProbe, PageError> {
    match PageResponseData::parse(MessageType::PageGetProbe, data) {
        Ok(PageResponseData::Probe(probe)) => Ok(probe),
        Ok(_) => Err(PageError::invalid("The page answered a probe with other data.")),
        Err(error) => Err(PageError::invalid(error.message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_five_flags_and_lists_what_is_missing() {
        let data = json!({"editor": true, "selection": false, "typstCanvas": true, "previewImage": false, "improvePanel": true});
        let probe = parse_probe(&data);
        assert_eq!(
            probe,
            Ok(PageProbe {
                editor: true,
                selection: false,
                typst_canvas: true,
                preview_image: false,
                improve_panel: true
            })
        );
        let probe = probe.unwrap_or_default();
        assert_eq!(missing(&probe, &[Capability::Editor, Capability::ImprovePanel]), vec![]);
        assert_eq!(
            missing(
                &probe,
                &[Capability::Selection, Capability::Editor, Capability::PreviewImage]
            ),
            vec![Capability::Selection, Capability::PreviewImage]
        );
        assert_eq!(Capability::ImprovePanel.as_str(), "improvePanel");
    }

    #[test]
    fn refuses_missing_extra_or_non_boolean_fields() {
        let base = json!({"editor": true, "selection": false, "typstCanvas": true, "previewImage": false, "improvePanel": true});
        let mut missing = base.clone();
        missing.as_object_mut().map(|o| o.remove("selection"));
        let mut extra = base.clone();
        extra["script"] = json!(true);
        let mut wrong = base.clone();
        wrong["editor"] = json!(1);
        for data in [missing, extra, wrong, json!([]), json!(null)] {
            assert_eq!(
                parse_probe(&data).map_err(|e| e.code),
                Err("INVALID_PAGE_RESPONSE".to_owned()),
                "{data}"
            );
        }
    }
}
