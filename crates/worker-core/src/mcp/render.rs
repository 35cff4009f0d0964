//! What the model reads of an MCP tool result: the original's
//! `renderMcpContent` (text items' text, resource items' text, anything else
//! as its JSON, joined with newlines) bounded to 65,536 characters.

use crate::mcp::ordered_json::Ordered;
use protocol::{js, limits};

/// Appended when a result is cut at [`limits::MAX_TOOL_RESULT_MODEL_CHARS`].
const TRUNCATION_NOTE: &str = "\n... (tool result truncated)";

/// `renderMcpContent(result)`.
pub(crate) fn render_content(result: &Ordered) -> String {
    if !result.is_truthy() {
        return String::new();
    }
    match result {
        Ordered::String(text) => text.clone(),
        Ordered::Object(_) => match result.get("content") {
            Some(Ordered::Array(items)) => items
                .iter()
                .filter(|item| item.is_truthy())
                .map(render_item)
                .collect::<Vec<_>>()
                .join("\n"),
            _ => result.stringify(),
        },
        Ordered::Array(_) => result.stringify(),
        _ => String::new(),
    }
}

fn render_item(item: &Ordered) -> String {
    let kind = item.get("type");
    if let (Some(Ordered::String(kind)), Some(Ordered::String(text))) = (kind, item.get("text"))
        && kind == "text"
    {
        return text.clone();
    }
    if matches!(kind, Some(Ordered::String(kind)) if kind == "resource")
        && let Some(text) = item.get("resource").and_then(|resource| resource.get("text"))
        && text.is_truthy()
    {
        return text.js_string();
    }
    item.stringify()
}

/// `boundToolText`: at most 65,536 UTF-16 units, then the truncation note.
pub(crate) fn bound_tool_text(text: String) -> String {
    let max = limits::to_usize(limits::MAX_TOOL_RESULT_MODEL_CHARS);
    if js::utf16_len(&text) <= max {
        return text;
    }
    format!("{}{TRUNCATION_NOTE}", js::truncate_utf16(&text, max))
}
