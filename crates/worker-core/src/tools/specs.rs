//! The ten built-in tools as the model sees them: OpenAI function specs with
//! their parameter schemas and descriptions.
//!
//! Names and schemas are part of the contract (the model, stored chats and
//! the panel refer to them; the names, in this order, are protocol's
//! `BUILTIN_TOOL_NAMES`, which custom tools may not take); the descriptions
//! tell the model when and how to use each tool. Limits are interpolated
//! from `protocol::limits`, so the text cannot drift from what the worker
//! enforces. Order matters: it is the order of the `tools` array in every
//! provider request.

use protocol::limits::{DEFAULT_READ_DOC_CHARS, DIAGNOSTICS_SETTLE_DELAY_MS, MAX_READ_DOC_TOOL_CHARS};
use serde_json::{Value, json};

fn function(name: &str, description: String, parameters: Value) -> Value {
    json!({
        "type": "function",
        "function": { "name": name, "description": description, "parameters": parameters },
    })
}

fn read_file_structure() -> Value {
    function(
        "read_file_structure",
        "List the file and folder names currently shown in the Typst Files sidebar, with their nesting. \
         Only names are read, never file contents. When the sidebar is closed, the call waits while the user \
         is asked to open it and then checks the page again. Children of collapsed folders are not visible: \
         if you need them, ask the user to expand those folders and call this tool again."
            .to_owned(),
        json!({ "type": "object", "properties": {}, "additionalProperties": false }),
    )
}

fn open_project_file() -> Value {
    function(
        "open_project_file",
        "Ask the user to open one exact project-relative file from the Files sidebar of the originating Typst \
         tab. The call waits until the editor's breadcrumb shows exactly that path and its text can be read; \
         after it succeeds, read_document and the editing tools in this response work on that file. Call it \
         before reading or changing any file other than the open one, and wait for its result before using \
         document tools or asking for yet another file. Binary files and assets that only have a preview \
         cannot be opened as editable text."
            .to_owned(),
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "The exact project-relative path, as listed by read_file_structure \
                                    (for example \"chapters/intro.typ\" or \"references/ref.bib\")."
                }
            },
            "required": ["path"],
            "additionalProperties": false
        }),
    )
}

fn read_document() -> Value {
    function(
        "read_document",
        "Read the source of the Typst project file that was open when the user sent the latest message. \
         Every line comes back prefixed with its number, like \"  N|text\"; the \"N|\" prefix is not part of \
         the source. Without arguments you get the beginning of the file up to max_chars; use start_line and \
         end_line (1-based, inclusive) to read a particular range, and approx_line_count in the result to page \
         through long files. If the user has switched to another file, the call waits until they return to \
         the file of the message."
            .to_owned(),
        json!({
            "type": "object",
            "properties": {
                "start_line": {
                    "type": "integer",
                    "description": "First line to return, 1-based and inclusive. Defaults to line 1."
                },
                "end_line": {
                    "type": "integer",
                    "description": "Last line to return, 1-based and inclusive. Values past the end are clamped, \
                                    so a generous bound is fine. Defaults to the end of the document."
                },
                "max_chars": {
                    "type": "integer",
                    "description": format!(
                        "Upper bound on the characters of numbered source returned (default \
                         {DEFAULT_READ_DOC_CHARS}, at most {MAX_READ_DOC_TOOL_CHARS}). It applies after the \
                         line range is selected; a truncated result says where to continue."
                    )
                }
            }
        }),
    )
}

fn read_diagnostics() -> Value {
    function(
        "read_diagnostics",
        format!(
            "Read current diagnostics from the originating Typst tab. The worker first waits \
             {DIAGNOSTICS_SETTLE_DELAY_MS} ms for the compiler to settle, then reads until two consecutive \
             reads agree. Messages from the Improve sidebar (project-wide and per line) are combined with the \
             editor's lint positions; project-wide items have line: null. kind is \"typst\" (a compiler message \
             with its detail), \"typst-summary\" (a compiler item whose detail was not shown), \"typst-status\" \
             (the state could not be confirmed) or \"spelling\". The result counts error_count, warning_count, \
             spelling_count and status_count separately. Pass an empty object; the timing cannot be changed."
        ),
        json!({ "type": "object", "properties": {}, "additionalProperties": false }),
    )
}

fn read_typst_docs() -> Value {
    function(
        "read_typst_docs",
        "Look things up in the bundled Typst 0.14–0.15 reference. Use it whenever you are not sure about \
         Typst syntax, a function's parameters, which set or show rule to use, a math symbol or the idiomatic \
         way to do something. Without a topic it returns the documented version and the list of topics with \
         a one-line summary each; with a topic (such as \"markup\", \"math\", \"scripting\" or a number from \
         \"1\" to \"12\") it returns that topic as Markdown."
            .to_owned(),
        json!({
            "type": "object",
            "properties": {
                "topic": {
                    "type": "string",
                    "description": "A topic id or number: syntax-basics, markup, math, scripting, types, styling, \
                                    context, layout, visualize, model, data-loading or cheat-sheet; \"1\" to \
                                    \"12\" and file stems like \"01-syntax-basics\" work too. Leave it out to \
                                    list the topics."
                }
            }
        }),
    )
}

fn replace_lines() -> Value {
    function(
        "replace_lines",
        "Replace a range of lines (1-based, inclusive) with new text. start_line, end_line and new_content \
         are all required; take the line numbers from read_document, never guess them. For a single line use \
         the same start_line and end_line. new_content is inserted exactly as given, so include newlines for \
         several lines; an empty new_content deletes the lines together with one adjoining line break."
            .to_owned(),
        json!({
            "type": "object",
            "properties": {
                "start_line": { "type": "integer", "description": "First line to replace (1-based, inclusive)." },
                "end_line": {
                    "type": "integer",
                    "description": "Last line to replace (1-based, inclusive); the same as start_line for one line."
                },
                "new_content": { "type": "string", "description": "The replacement text; \"\" deletes the lines." }
            },
            "required": ["start_line", "end_line", "new_content"]
        }),
    )
}

fn search_replace() -> Value {
    function(
        "search_replace",
        "Replace the first occurrence of an exact piece of text. Use it when that text occurs only once; \
         otherwise prefer replace_lines or patch_document."
            .to_owned(),
        json!({
            "type": "object",
            "properties": { "search": { "type": "string" }, "replace": { "type": "string" } },
            "required": ["search", "replace"]
        }),
    )
}

fn patch_document() -> Value {
    function(
        "patch_document",
        "Apply several search-and-replace edits as one change. Every search is matched against the document \
         as it was before the patch, and the edits are then applied in document order. If any edit finds no \
         match, or more than one match while unique is true, nothing is changed."
            .to_owned(),
        json!({
            "type": "object",
            "properties": {
                "edits": {
                    "type": "array",
                    "description": "The edits, in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "search": { "type": "string" },
                            "replace": { "type": "string" },
                            "unique": {
                                "type": "boolean",
                                "description": "When true (the default), the edit fails if search matches more \
                                                than once."
                            }
                        },
                        "required": ["search", "replace"]
                    }
                }
            },
            "required": ["edits"]
        }),
    )
}

fn insert_at_cursor() -> Value {
    function(
        "insert_at_cursor",
        "Insert text where the cursor currently is in the editor.".to_owned(),
        json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }),
    )
}

fn replace_selection() -> Value {
    function(
        "replace_selection",
        "Replace the text currently selected in the editor.".to_owned(),
        json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }),
    )
}

/// The built-in specs in the order the provider receives them.
pub(crate) fn builtin_specs() -> Vec<Value> {
    vec![
        read_file_structure(),
        open_project_file(),
        read_document(),
        read_diagnostics(),
        read_typst_docs(),
        replace_lines(),
        search_replace(),
        patch_document(),
        insert_at_cursor(),
        replace_selection(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::tool_schema::{SchemaOptions, ToolSchema};
    use std::collections::HashSet;

    #[test]
    fn every_builtin_is_a_valid_function_spec_with_a_unique_name() {
        let specs = builtin_specs();
        assert_eq!(specs.len(), 10);
        let mut names = HashSet::new();
        for spec in &specs {
            assert_eq!(spec["type"], "function");
            let name = spec["function"]["name"].as_str().unwrap_or_default();
            assert!(names.insert(name.to_owned()), "duplicate {name}");
            assert!(
                spec["function"]["description"].as_str().is_some_and(|d| d.len() > 20),
                "{name}"
            );
            assert_eq!(spec["function"]["parameters"]["type"], "object", "{name}");
            let compiled = ToolSchema::compile(&spec["function"]["parameters"], SchemaOptions::CUSTOM);
            assert!(compiled.is_ok(), "{name}: {compiled:?}");
        }
    }

    #[test]
    fn the_specs_are_the_built_in_names_of_protocol_in_order() {
        let names: Vec<String> = builtin_specs()
            .iter()
            .map(|spec| spec["function"]["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(names, protocol::constants::BUILTIN_TOOL_NAMES);
    }

    #[test]
    fn read_diagnostics_offers_no_model_controlled_delay() {
        let spec = read_diagnostics();
        let schema = ToolSchema::compile(&spec["function"]["parameters"], SchemaOptions::CUSTOM);
        let Ok(schema) = schema else {
            panic!("schema does not compile");
        };
        assert_eq!(spec["function"]["parameters"]["properties"], json!({}));
        assert!(schema.parse_and_validate("{}").is_ok());
        let refused = schema
            .parse_and_validate(r#"{"delay_ms":1}"#)
            .err()
            .and_then(|e| e.code());
        assert_eq!(refused.map(|c| c.as_str()), Some("ADDITIONAL_PROPERTY"));
        let text = spec["function"]["description"].as_str().unwrap_or_default();
        assert!(text.contains("750 ms"));
    }

    #[test]
    fn read_document_states_its_real_limits() {
        let spec = read_document();
        let text = spec["function"]["parameters"]["properties"]["max_chars"]["description"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("28000") && text.contains("64000"), "{text}");
    }

    #[test]
    fn editor_writes_require_their_arguments() {
        let specs = builtin_specs();
        let schema_of = |name: &str| {
            specs
                .iter()
                .find(|s| s["function"]["name"] == name)
                .and_then(|s| ToolSchema::compile(&s["function"]["parameters"], SchemaOptions::CUSTOM).ok())
        };
        let Some(replace) = schema_of("replace_lines") else {
            panic!("replace_lines missing");
        };
        assert!(
            replace
                .parse_and_validate(r#"{"start_line":1,"end_line":1,"new_content":""}"#)
                .is_ok()
        );
        assert!(replace.parse_and_validate(r#"{"start_line":1,"end_line":1}"#).is_err());
        let Some(patch) = schema_of("patch_document") else {
            panic!("patch_document missing");
        };
        assert!(patch.parse_and_validate(r#"{"edits":[{"search":"a"}]}"#).is_err());
    }
}
