//! The static DOM of Settings → Tools and Settings → MCP: each pane's help
//! text, its registry, its Add button and its form (hidden until opened).
//! Element ids are the original's (`tool-*`, `tf-*`, `mcp-*`); every control
//! is labelled, and each text field has the place beside it where its
//! problem is shown (`form::checked_field`).

use super::form::{button, check_field, checked_field, json_input, section, settings_pane, text_input};
use crate::dom::el;
use crate::integration_forms::{FormField, protocol_mode_label};
use protocol::registry_records::McpProtocolMode;
use web_sys::Element;

/// A help paragraph with inline code: `parts` alternate between text and code.
fn help(parts: &[&str]) -> Element {
    let mut paragraph = el("p").class("settings-help");
    for (index, part) in parts.iter().enumerate() {
        paragraph = if index % 2 == 1 {
            paragraph.child(el("code").text(part))
        } else {
            paragraph.append_text(part)
        };
    }
    paragraph.build()
}

fn text_field(field: FormField, label: &str, placeholder: &str) -> Element {
    let id = field.element_id();
    checked_field(label, id, text_input(id, "text", placeholder))
}

fn json_field(field: FormField, label: &str, rows: u32, placeholder: &str) -> Element {
    let id = field.element_id();
    checked_field(label, id, json_input(id, rows, placeholder))
}

/// The registry list and its empty note (shown instead while it is empty).
fn registry(id: &str, label: &str, empty: &str) -> [Element; 2] {
    [
        el("div")
            .id(id)
            .class("registry")
            .attr("role", "list")
            .attr("aria-label", label)
            .flag("hidden", true)
            .build(),
        el("p")
            .id(&format!("{id}-empty"))
            .class("settings-help registry-empty")
            .text(empty)
            .build(),
    ]
}

fn form_frame(id: &str, title_id: &str, title: &str) -> crate::dom::El {
    el("div")
        .id(id)
        .class("entity-form")
        .attr("role", "group")
        .attr("aria-labelledby", title_id)
        .flag("hidden", true)
        .child(el("div").id(title_id).class("entity-form-title").text(title))
        .child(el("input").id(&format!("{id}-id")).attr("type", "hidden"))
}

const TRUSTED_TEXT: &str =
    "Run without asking before each call (this exact configuration only; it may receive data from your project)";
const INSECURE_TEXT: &str = "Allow unencrypted HTTP to this exact origin (headers and arguments travel in clear text)";

/// Settings → Tools.
pub(super) fn tools_pane() -> Element {
    let [list, empty] = registry("tool-registry", "Custom tools", "No custom tools yet.");
    let form = form_frame("tool-form", "tool-form-title", "Add custom tool")
        .child(text_field(
            FormField::ToolName,
            "Function name (a letter, then letters, digits or underscores)",
            "search_arxiv",
        ))
        .child(text_field(
            FormField::ToolDescription,
            "Description (what the model reads to decide when to call it)",
            "Searches arXiv for recent papers.",
        ))
        .child(text_field(
            FormField::ToolEndpoint,
            "Endpoint URL (receives a POST)",
            "https://tools.example.com/agent-tool",
        ))
        .child(check_field("tf-insecure", INSECURE_TEXT))
        .child(json_field(
            FormField::ToolHeaders,
            "Headers (JSON object, optional)",
            3,
            "{\"Authorization\": \"Bearer …\"}",
        ))
        .child(json_field(
            FormField::ToolParams,
            "Parameters (JSON Schema of the arguments)",
            7,
            "{\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"string\"}}, \"required\": [\"query\"]}",
        ))
        .child(check_field("tf-enabled", "Enabled"))
        .child(check_field("tf-trusted", TRUSTED_TEXT))
        .child(
            el("div")
                .class("form-actions")
                .child(button("btn btn-ghost").id("tool-cancel").text("Cancel"))
                .child(button("btn btn-primary").id("tool-save").text("Save")),
        );
    pane(
        "tools",
        section(
            "Custom tools",
            vec![
                help(&[
                    "A custom tool is an HTTP endpoint the model can call like a function. Each call is a POST of ",
                    "{\"tool\": <name>, \"arguments\": {…}}",
                    " (JSON); the endpoint's JSON answer goes back to the model.",
                ]),
                list,
                empty,
                button("ghost-btn").id("add-tool-btn").text("+ Add custom tool").build(),
                form.build(),
            ],
        ),
    )
}

/// Settings → MCP.
pub(super) fn mcp_pane() -> Element {
    let [list, empty] = registry("mcp-registry", "MCP servers", "No MCP servers yet.");
    let modes = McpProtocolMode::ALL.iter().map(|mode| {
        el("option")
            .attr("value", mode.as_str())
            .text(protocol_mode_label(*mode))
            .build()
    });
    let protocol = FormField::McpProtocol.element_id();
    let form = form_frame("mcp-form", "mcp-form-title", "Add MCP server")
        .child(text_field(FormField::McpName, "Name", "local"))
        .child(text_field(
            FormField::McpUrl,
            "Endpoint URL (Streamable HTTP)",
            "http://localhost:7000/mcp",
        ))
        .child(check_field("mcp-insecure", INSECURE_TEXT))
        .child(json_field(
            FormField::McpHeaders,
            "Headers (JSON object, optional)",
            3,
            "{\"Authorization\": \"Bearer …\"}",
        ))
        .child(checked_field(
            "Protocol version",
            protocol,
            el("select").id(protocol).children(modes).build(),
        ))
        .child(check_field("mcp-enabled", "Enabled"))
        .child(check_field("mcp-trusted", TRUSTED_TEXT))
        .child(
            el("div")
                .id("mcp-probe-result")
                .class("probe-result")
                .attr("role", "status")
                .attr("aria-live", "polite")
                .flag("hidden", true),
        )
        .child(
            el("div")
                .class("form-actions form-actions-spread")
                .child(button("btn btn-ghost").id("mcp-probe").text("Probe tools"))
                .child(
                    el("div")
                        .class("form-actions")
                        .child(button("btn btn-ghost").id("mcp-cancel").text("Cancel"))
                        .child(button("btn btn-primary").id("mcp-save").text("Save")),
                ),
        );
    pane(
        "mcp",
        section(
            "MCP servers",
            vec![
                help(&[
                    "Connects to Model Context Protocol servers over Streamable HTTP. Their tools are listed with ",
                    "tools/list",
                    " and offered to the model as ",
                    "mcp__<server>_<hash>__<tool>_<hash>",
                    ", so two servers' tools never share a name.",
                ]),
                list,
                empty,
                button("ghost-btn").id("add-mcp-btn").text("+ Add MCP server").build(),
                form.build(),
            ],
        ),
    )
}

fn pane(name: &str, content: Element) -> Element {
    settings_pane(name).child(content).build()
}
