//! What each built-in tool may do, decided by this source and never by the
//! model: its effect, whether it needs the user's approval, where it acts,
//! and which page capabilities must be present before it runs. (External
//! tools get their policy from their stored record: `tools/external.rs`.)
//!
//! The model only picks a visible name and arguments; everything that
//! governs safety (approval, destination, preflight) is looked up here, so a
//! crafted tool call cannot talk its way past a review.

/// What a tool touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Reads the page or bundled data; changes nothing.
    Read,
    /// Changes the editor buffer of the originating tab.
    EditorWrite,
    /// Sends its arguments outside the extension (a custom HTTP tool, an
    /// MCP server's tool).
    External,
}

impl Effect {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::EditorWrite => "editor-write",
            Effect::External => "external",
        }
    }
}

/// Whether a call waits for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approval {
    /// Runs without asking (read tools).
    Automatic,
    /// Asks for every call (or once per run with "Allow for run").
    Once,
    /// The user trusted this exact integration configuration.
    Trusted,
}

pub(crate) use content_bridge::probe::Capability;

/// Page capabilities a tool needs before it runs, and what to tell the user
/// while they are missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Preflight {
    pub(crate) capabilities: &'static [Capability],
    pub(crate) hint: &'static str,
}

/// The source-owned policy of one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToolPolicy {
    pub(crate) effect: Effect,
    pub(crate) approval: Approval,
    pub(crate) destination: &'static str,
    /// `None` when the tool needs no capability (or runs its own wait loop).
    pub(crate) preflight: Option<Preflight>,
    /// The tool reads or changes the originating tab, which must still show
    /// the page the run started on.
    pub(crate) uses_tab: bool,
}

const EDIT_HINT: &str = "Show the editor of the file to be changed in the typst.app tab this chat started from.";

const fn read(destination: &'static str, preflight: Option<Preflight>) -> ToolPolicy {
    ToolPolicy {
        effect: Effect::Read,
        approval: Approval::Automatic,
        destination,
        preflight,
        uses_tab: true,
    }
}

const fn write(capabilities: &'static [Capability], hint: &'static str) -> ToolPolicy {
    ToolPolicy {
        effect: Effect::EditorWrite,
        approval: Approval::Once,
        destination: "originating Typst editor",
        preflight: Some(Preflight { capabilities, hint }),
        uses_tab: true,
    }
}

/// The policy of a built-in tool, by its exact name.
pub(crate) fn builtin_policy(name: &str) -> Option<ToolPolicy> {
    Some(match name {
        "read_file_structure" => read("visible Typst Files sidebar", None),
        "open_project_file" => read("originating Typst Files sidebar", None),
        "read_document" => read(
            "active Typst editor file",
            Some(Preflight {
                capabilities: &[Capability::Editor],
                hint: "Open a Typst source file (.typ) in the typst.app tab this chat started from.",
            }),
        ),
        "read_diagnostics" => read(
            "typst.app diagnostics",
            Some(Preflight {
                capabilities: &[Capability::Editor, Capability::ImprovePanel],
                hint: "Open the Improve panel in the typst.app tab this chat started from.",
            }),
        ),
        "read_typst_docs" => ToolPolicy {
            uses_tab: false,
            ..read("bundled Typst reference", None)
        },
        "replace_lines" | "search_replace" | "patch_document" => write(&[Capability::Editor], EDIT_HINT),
        "insert_at_cursor" => write(
            &[Capability::Editor],
            "Put the text cursor where the text should go in the originating typst.app editor.",
        ),
        "replace_selection" => write(
            &[Capability::Editor, Capability::Selection],
            "Select the text to replace in the originating typst.app editor, then press Retry.",
        ),
        _ => return None,
    })
}

/// Whether a built-in's result may be answered by reference to an identical
/// earlier result of the same run (the run budget's read cache): it only
/// reads, and it changes nothing the run depends on. `open_project_file`
/// reads too, but it retargets the run's file, so each call is answered.
pub(crate) fn is_repeatable_read(name: &str) -> bool {
    matches!(
        name,
        "read_document" | "read_diagnostics" | "read_file_structure" | "read_typst_docs"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::specs::builtin_specs;
    use protocol::constants::EDITOR_WRITE_TOOLS;

    #[test]
    fn every_builtin_has_an_explicit_policy_and_writes_need_approval() {
        for spec in builtin_specs() {
            let name = spec["function"]["name"].as_str().unwrap_or_default();
            let policy = builtin_policy(name);
            assert!(policy.is_some(), "{name} has no policy");
            let Some(policy) = policy else { continue };
            match policy.effect {
                Effect::Read => assert_eq!(policy.approval, Approval::Automatic, "{name}"),
                Effect::External => panic!("{name}: no built-in leaves the extension"),
                Effect::EditorWrite => {
                    assert_eq!(policy.approval, Approval::Once, "{name}");
                    assert!(EDITOR_WRITE_TOOLS.contains(&name), "{name}");
                    assert!(
                        policy
                            .preflight
                            .is_some_and(|p| p.capabilities.contains(&Capability::Editor))
                    );
                }
            }
        }
        assert_eq!(builtin_policy("mcp__x"), None);
        assert!(!is_repeatable_read("open_project_file") && !is_repeatable_read("replace_lines"));
    }

    #[test]
    fn preflight_capabilities_match_what_each_tool_reads() {
        let caps = |name: &str| builtin_policy(name).and_then(|p| p.preflight).map(|p| p.capabilities);
        assert_eq!(caps("read_document"), Some(&[Capability::Editor][..]));
        assert_eq!(
            caps("read_diagnostics"),
            Some(&[Capability::Editor, Capability::ImprovePanel][..])
        );
        assert_eq!(
            caps("replace_selection"),
            Some(&[Capability::Editor, Capability::Selection][..])
        );
        for own_loop in ["read_file_structure", "open_project_file", "read_typst_docs"] {
            assert_eq!(caps(own_loop), None, "{own_loop}");
        }
        assert_eq!(Capability::ImprovePanel.as_str(), "improvePanel");
    }
}
