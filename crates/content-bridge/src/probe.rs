//! `PAGE_GET_PROBE`: what the page can offer right now.

use protocol::page_bridge::PROBE_FIELDS;
use serde_json::Value;

use crate::PageError;

/// The page's capabilities, as its main-world runtime saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageProbe {
    /// CodeMirror's EditorView was found.
    pub editor: bool,
    /// The editor's main selection is not empty.
    pub selection: bool,
    /// A canvas large enough to be Typst's rendered preview is shown.
    pub typst_canvas: bool,
    /// An image asset is open in the preview column.
    pub preview_image: bool,
    /// typst.app's Improve (diagnostics) panel is shown.
    pub improve_panel: bool,
}

/// Reads a probe answer: exactly the five boolean fields, nothing else.
pub fn parse_probe(data: &Value) -> Result<PageProbe, PageError> {
    let invalid = |why: String| PageError::new("INVALID_PAGE_RESPONSE", why);
    let object = data
        .as_object()
        .ok_or_else(|| invalid("The probe answer is not an object.".into()))?;
    if let Some(extra) = object.keys().find(|key| !PROBE_FIELDS.contains(&key.as_str())) {
        return Err(invalid(format!("The probe answer has an unknown field: {extra}.")));
    }
    let flag = |name: &str| {
        object
            .get(name)
            .and_then(Value::as_bool)
            .ok_or_else(|| invalid(format!("The probe answer's {name} is not a boolean.")))
    };
    Ok(PageProbe {
        editor: flag("editor")?,
        selection: flag("selection")?,
        typst_canvas: flag("typstCanvas")?,
        preview_image: flag("previewImage")?,
        improve_panel: flag("improvePanel")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_five_flags() {
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
            assert!(parse_probe(&data).is_err(), "{data}");
        }
    }
}
