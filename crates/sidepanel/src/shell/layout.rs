//! The panel's static structure, built once under `#app`: banner, header
//! with its menus, the toast, the settings panel (General, Models, and the
//! Tools and MCP panes of `integrations_layout.rs`), the About dialog, the
//! chat container and the composer. Element ids are the original's so
//! habits, styles and tests keep working.

use super::form::{button, check_field, field, section, settings_pane, text_input};
use super::icons;
use super::integrations_layout;
use super::session_manager_layout;
use super::settings_panel;
use crate::dom::{el, icon};
use crate::settings::REASONING_EFFORTS;
use crate::shortcut;
use crate::tab_gate::TAB_GATE_TEXT;
use protocol::constants::SendMessageShortcut;
use wasm_bindgen::JsValue;
use web_sys::Element;

pub(crate) const REPOSITORY_URL: &str = "https://github.com/dbccccccc/Typst-Side-Agent";
pub(crate) const FORUM_URL: &str = "https://forum.typst.app/u/dbcccc/summary";
pub(crate) const CHROME_WEB_STORE_URL: &str =
    "https://chromewebstore.google.com/detail/eljacjoifoamnmbclmhlpcdabdioleab";

/// The empty chat's suggestions: (title, subtitle, prompt, icon).
pub(crate) const SUGGESTIONS: [(&str, &str, &str, &[&str]); 3] = [
    (
        "Fix compile errors",
        "Read the diagnostics and propose a fix",
        "Look at the current diagnostics, explain each error and propose fixes.",
        icons::FIX,
    ),
    (
        "Improve this document",
        "Structure, clarity and Typst style",
        "Review this document and suggest the changes that would improve it most.",
        icons::IMPROVE,
    ),
    (
        "Explain this file",
        "Walk through the Typst code",
        "Read this document and explain how it is put together.",
        icons::EXPLAIN,
    ),
];

fn header() -> Element {
    let about = button("app-mark")
        .id("about-icon-button")
        .label("About Typst Side Agent")
        .attr("aria-haspopup", "dialog")
        .attr("aria-controls", "about-dialog-layer")
        .child(el("img").attr("src", "../../icons/icon32.png").attr("alt", ""));
    let session = el("div")
        .class("dropdown")
        .id("session-dropdown")
        .child(
            button("header-btn")
                .id("session-current")
                .attr("title", "Switch chat")
                .attr("aria-expanded", "false")
                .attr("aria-controls", "session-menu")
                .child(icon(14, icons::CHAT))
                .child(el("span").id("session-name").class("header-btn-label").text("New chat"))
                .child(icon(12, icons::CHEVRON_DOWN)),
        )
        .child(
            el("div")
                .id("session-menu")
                .class("dropdown-menu")
                .attr("role", "group")
                .attr("aria-label", "Chats of this project")
                .flag("hidden", true)
                .child(
                    el("div")
                        .id("session-list")
                        .class("dropdown-list")
                        .attr("role", "list")
                        .attr("aria-label", "Chats"),
                )
                .child(button("dropdown-action").id("session-new").text("+ New chat"))
                .child(
                    button("dropdown-action dropdown-action-sub")
                        .id("session-manage")
                        .attr("title", "Every chat of every project, with export and import")
                        .text("Manage all chats…"),
                ),
        );
    let model = el("div")
        .class("dropdown")
        .id("model-selector")
        .child(
            button("header-btn header-btn-sm")
                .id("model-current")
                .attr("title", "Model used for new messages")
                .attr("aria-haspopup", "menu")
                .attr("aria-expanded", "false")
                .attr("aria-controls", "model-menu")
                .child(icon(13, icons::MODEL))
                .child(el("span").id("model-name").class("header-btn-label").text("No model"))
                .child(icon(12, icons::CHEVRON_DOWN)),
        )
        .child(
            el("div")
                .id("model-menu")
                .class("dropdown-menu dropdown-menu-right")
                .attr("role", "menu")
                .attr("aria-label", "Models")
                .flag("hidden", true)
                .child(el("div").id("model-list").class("dropdown-list")),
        );
    let settings = button("icon-btn")
        .id("settings-toggle")
        .label("Settings")
        .attr("aria-controls", "settings-panel")
        .attr("aria-expanded", "false")
        .child(icon(15, icons::SLIDERS));
    el("header")
        .class("header")
        .child(
            el("div")
                .class("header-left")
                .child(about)
                .child(
                    el("h1")
                        .id("app-title")
                        .class("visually-hidden")
                        .text("Typst Side Agent"),
                )
                .child(session),
        )
        .child(el("div").class("header-right").child(model).child(settings))
        .build()
}

fn toast() -> Element {
    let icon_box = el("span")
        .class("status-toast-icon")
        .attr("aria-hidden", "true")
        .child(el("span").class("status-toast-info-icon").child(icon(15, icons::INFO)))
        .child(
            el("span")
                .class("status-toast-error-icon")
                .child(icon(15, icons::WARNING)),
        );
    let actions = el("span")
        .class("status-toast-actions")
        .child(
            button("status-toast-action status-copy")
                .id("status-copy")
                .attr("title", "Copy message")
                .attr("aria-label", "Copy the notification text")
                .child(el("span").class("status-copy-icon").child(icon(13, icons::COPY)))
                .child(el("span").class("status-copy-check").child(icon(13, icons::CHECK))),
        )
        .child(
            button("status-toast-action")
                .id("status-close")
                .attr("title", "Dismiss")
                .attr("aria-label", "Dismiss the notification")
                .child(icon(13, icons::CLOSE)),
        );
    el("div")
        .id("status-region")
        .class("status-region")
        .attr("aria-live", "polite")
        .attr("aria-atomic", "true")
        .child(
            el("div")
                .id("status")
                .class("status-toast")
                .attr("role", "status")
                .attr("aria-hidden", "true")
                .flag("hidden", true)
                .child(icon_box)
                .child(el("span").id("status-message").class("status-toast-message"))
                .child(actions),
        )
        .build()
}

fn shortcut_select() -> Element {
    let options = SendMessageShortcut::ALL
        .iter()
        .map(|s| el("option").attr("value", s.as_str()).text(shortcut::label(*s)).build());
    el("select").id("send-message-shortcut").children(options).build()
}

fn general_pane() -> Element {
    let theme = el("div")
        .class("seg-switch")
        .id("theme-switch")
        .attr("role", "group")
        .attr("aria-label", "Appearance")
        .child(
            button("seg-opt")
                .attr("data-theme", "light")
                .attr("aria-pressed", "false")
                .text("Light"),
        )
        .child(
            button("seg-opt active")
                .attr("data-theme", "dark")
                .attr("aria-pressed", "true")
                .text("Dark"),
        )
        .build();
    let history = el("input")
        .id("history-cap")
        .attr("type", "number")
        .attr("min", "8")
        .attr("max", "200")
        .attr("step", "1")
        .attr("value", "40")
        .build();
    let auto_name = el("select")
        .id("auto-name-model")
        .child(el("option").attr("value", "").text("Off (never rename chats)"))
        .build();
    let prompt = el("textarea")
        .id("system-prompt")
        .attr("rows", "5")
        .attr("placeholder", "Empty: the built-in instructions are used.")
        .build();
    let about = button("about-settings-button")
        .id("about-settings-button")
        .attr("aria-haspopup", "dialog")
        .attr("aria-controls", "about-dialog-layer")
        .child(
            el("span")
                .class("about-settings-mark")
                .attr("aria-hidden", "true")
                .child(el("img").attr("src", "../../icons/icon32.png").attr("alt", "")),
        )
        .child(
            el("span")
                .class("about-settings-copy")
                .child(el("strong").text("Typst Side Agent"))
                .child(el("span").id("about-settings-version").text("Version")),
        )
        .child(
            el("span")
                .class("about-settings-arrow")
                .child(icon(15, icons::CHEVRON_RIGHT)),
        )
        .build();
    settings_pane("general")
        .children([
            section("Appearance", vec![theme]),
            section(
                "Send message",
                vec![field(
                    "The chosen shortcut sends; the other Enter shortcuts start a new line.",
                    shortcut_select(),
                )],
            ),
            section(
                "History cap",
                vec![field(
                    "How many chat messages the model sees at most (8 to 200); older turns are summarised.",
                    history,
                )],
            ),
            section(
                "Auto-name chats",
                vec![field(
                    "After each message this model gives the chat a short title. Chats you renamed keep their name.",
                    auto_name,
                )],
            ),
            section(
                "System prompt",
                vec![
                    field("Extra instructions for every run.", prompt),
                    el("div")
                        .class("form-actions")
                        .child(button("btn btn-primary").id("save-general-settings").text("Save"))
                        .build(),
                ],
            ),
            section("About", vec![about]),
        ])
        .build()
}

fn models_pane() -> Element {
    let efforts = REASONING_EFFORTS
        .iter()
        .map(|(value, label)| el("option").attr("value", value).text(label).build());
    let form = el("div")
        .id("model-form")
        .class("entity-form")
        .flag("hidden", true)
        .child(
            el("div")
                .id("model-form-title")
                .class("entity-form-title")
                .text("Add model"),
        )
        .child(el("input").id("model-form-id").attr("type", "hidden"))
        .child(field("Name", text_input("mf-name", "text", "My model")))
        .child(field(
            "API base URL",
            text_input("mf-base-url", "text", "https://api.example.com/v1"),
        ))
        .child(check_field(
            "mf-insecure",
            "Allow unencrypted HTTP to this exact origin (keys and documents travel in clear text)",
        ))
        .child(field("API key", text_input("mf-api-key", "password", "sk-…")))
        .child(field("Model ID", text_input("mf-model-id", "text", "model-name")))
        .child(check_field("mf-vision", "Accepts images"))
        .child(field(
            "Reasoning effort (sent as reasoning_effort when not Default)",
            el("select").id("mf-reasoning-effort").children(efforts).build(),
        ))
        .child(
            el("div")
                .class("form-actions")
                .child(button("btn btn-ghost").id("mf-cancel").text("Cancel"))
                .child(button("btn btn-primary").id("mf-save").text("Save")),
        );
    settings_pane("models")
        .child(
            el("div")
                .class("settings-section")
                .child(el("div").class("settings-label").text("Models"))
                .child(el("div").id("model-registry").class("model-registry"))
                .child(button("ghost-btn").id("add-model-btn").text("+ Add model"))
                .child(form),
        )
        .build()
}

/// A settings tab; it controls the pane of the same name
/// (`settings-tab-<name>` and `settings-pane-<name>` name each other).
fn settings_tab(tab: &str, label: &str, selected: bool) -> Element {
    button(if selected {
        "settings-tab active"
    } else {
        "settings-tab"
    })
    .id(&format!("settings-tab-{tab}"))
    .attr("data-tab", tab)
    .attr("role", "tab")
    .attr("aria-selected", if selected { "true" } else { "false" })
    .attr("aria-controls", &format!("settings-pane-{tab}"))
    .text(label)
    .build()
}

fn settings_panel() -> Element {
    let tabs = el("div")
        .class("settings-tabs")
        .id("settings-tabs")
        .attr("role", "tablist")
        .attr("aria-label", "Settings sections")
        .children(
            settings_panel::TABS
                .iter()
                .map(|(_, name, label)| settings_tab(name, label, *name == "general")),
        );
    el("section")
        .id("settings-panel")
        .class("settings-panel collapsed")
        .attr("aria-labelledby", "settings-title")
        .flag("hidden", true)
        .child(
            el("div")
                .class("settings-inner")
                .child(
                    el("div")
                        .class("settings-topline")
                        .child(el("h2").id("settings-title").class("settings-title").text("Settings"))
                        .child(
                            button("icon-btn settings-close")
                                .id("settings-close")
                                .label("Close settings")
                                .child(icon(16, icons::CLOSE)),
                        ),
                )
                .child(tabs)
                .child(general_pane())
                .child(models_pane())
                .child(integrations_layout::tools_pane())
                .child(integrations_layout::mcp_pane())
                .child(session_manager_layout::sessions_pane()),
        )
        .build()
}

fn about_link(id: Option<&str>, href: &str, title: &str, subtitle: &str) -> Element {
    let mut link = el("a")
        .class("about-resource-link")
        .attr("href", href)
        .attr("target", "_blank")
        .attr("rel", "noopener noreferrer");
    if let Some(id) = id {
        link = link.id(id);
    }
    link.child(
        el("span")
            .class("about-resource-copy")
            .child(el("strong").text(title))
            .child(el("span").text(subtitle)),
    )
    .child(
        el("span")
            .class("about-resource-arrow")
            .child(icon(14, icons::EXTERNAL)),
    )
    .build()
}

fn about_dialog() -> Element {
    let dialog = el("section")
        .class("dialog about-dialog")
        .attr("role", "dialog")
        .attr("aria-modal", "true")
        .attr("aria-labelledby", "about-dialog-title")
        .attr("aria-describedby", "about-dialog-description")
        .child(
            el("div")
                .class("dialog-header")
                .child(
                    el("div")
                        .class("dialog-heading")
                        .child(el("strong").id("about-dialog-title").text("About Typst Side Agent"))
                        .child(el("span").id("about-dialog-version").text("Version")),
                )
                .child(
                    button("dialog-close")
                        .id("about-dialog-close")
                        .label("Close About")
                        .child(icon(15, icons::CLOSE)),
                ),
        )
        .child(
            el("div")
                .class("dialog-body about-dialog-body")
                .child(
                    el("div")
                        .class("about-hero")
                        .child(el("img").attr("src", "../../icons/icon48.png").attr("alt", ""))
                        .child(
                            el("p")
                                .id("about-dialog-description")
                                .class("about-description")
                                .text("An AI assistant that works beside your Typst document: it reads the file, its diagnostics and the project's files, and answers in the side panel."),
                        ),
                )
                .child(
                    el("p")
                        .id("about-storage-access")
                        .class("about-storage-access")
                        .attr("role", "status")
                        .flag("hidden", true),
                )
                .child(
                    el("div")
                        .class("about-resource-list")
                        .attr("aria-label", "Links")
                        .child(about_link(None, REPOSITORY_URL, "GitHub", "Source code, releases and issue tracker"))
                        .child(about_link(None, FORUM_URL, "Typst Forum", "Reach the author and share feedback"))
                        .child(about_link(
                            Some("about-chrome-store-link"),
                            CHROME_WEB_STORE_URL,
                            "Chrome Web Store",
                            "The extension's store listing",
                        )),
                ),
        );
    el("div")
        .id("about-dialog-layer")
        .class("dialog-layer")
        .attr("role", "presentation")
        .flag("hidden", true)
        .child(dialog)
        .build()
}

/// The suggestions shown in an empty chat (they only prefill the input).
pub(crate) fn empty_state() -> Element {
    let buttons = SUGGESTIONS.iter().map(|(title, subtitle, prompt, paths)| {
        button("empty-suggestion")
            .attr("data-prompt", prompt)
            .child(el("span").class("empty-suggestion-icon").child(icon(15, paths)))
            .child(
                el("span")
                    .class("empty-suggestion-copy")
                    .child(el("strong").text(title))
                    .child(el("small").text(subtitle)),
            )
            .child(
                el("span")
                    .class("empty-suggestion-arrow")
                    .child(icon(14, icons::CHEVRON_RIGHT)),
            )
            .build()
    });
    el("div")
        .class("empty-state")
        .child(
            el("div")
                .class("empty-suggestions")
                .attr("aria-label", "Suggested prompts")
                .children(buttons),
        )
        .child(
            el("p")
                .class("hint")
                .text("Pick a starting point, or ask anything about the open document."),
        )
        .build()
}

fn context_option(kind: &str, title: &str, hint: &str) -> Element {
    button("add-context-opt")
        .attr("data-add", kind)
        .attr("role", "menuitem")
        .child(el("span").class("opt-title").text(title))
        .child(el("span").class("opt-hint").text(hint))
        .build()
}

fn permission_option(mode: &str, title: &str, hint: &str) -> Element {
    button("add-context-opt editor-permission-opt")
        .attr("data-editor-approval-mode", mode)
        .attr("role", "menuitemradio")
        .attr("aria-checked", "false")
        .child(el("span").class("opt-title").text(title))
        .child(el("span").class("opt-hint").text(hint))
        .build()
}

/// The Edits control: whether the agent's document edits wait for review.
fn editor_permission() -> Element {
    el("div")
        .id("editor-permission-wrap")
        .class("add-context-wrap editor-permission-wrap")
        .child(
            button("add-context-btn editor-permission-btn")
                .id("editor-permission-btn")
                .attr("aria-haspopup", "menu")
                .attr("aria-expanded", "false")
                .attr("aria-controls", "editor-permission-menu")
                .attr("data-mode", "ask")
                .child(el("span").class("editor-permission-label").text("Edits"))
                // A space between the words, so the visible text reads as
                // two words ("Edits Ask") that the accessible name starts with.
                .append_text(" ")
                .child(
                    el("span")
                        .id("editor-permission-current")
                        .class("editor-permission-current")
                        .text("Ask"),
                ),
        )
        .child(
            el("div")
                .id("editor-permission-menu")
                .class("add-context-menu editor-permission-menu")
                .attr("role", "menu")
                .attr("aria-label", "Document edits")
                .flag("hidden", true)
                .child(permission_option(
                    "ask",
                    "Ask before applying",
                    "Show each edit as a diff; nothing changes until you apply it.",
                ))
                .child(permission_option(
                    "auto",
                    "Auto approve",
                    "Apply the agent's document edits without a review.",
                )),
        )
        .build()
}

/// A confirmation dialog with the given ids (`<prefix>-layer`, `-title`,
/// `-subtitle`, `-close`, `-body`, `-cancel`, `-confirm`).
fn confirm_dialog(prefix: &str, class: &str, title: &str, confirm: &str) -> Element {
    let id = |part: &str| format!("{prefix}-{part}");
    let dialog = el("section")
        .class(&format!("dialog {class}"))
        .attr("role", "dialog")
        .attr("aria-modal", "true")
        .attr("aria-labelledby", &id("title"))
        .attr("aria-describedby", &id("subtitle"))
        .child(
            el("div")
                .class("dialog-header")
                .child(
                    el("div")
                        .class("dialog-heading")
                        .child(el("strong").id(&id("title")).text(title))
                        .child(el("span").id(&id("subtitle"))),
                )
                .child(
                    button("dialog-close")
                        .id(&id("close"))
                        .label("Close")
                        .child(icon(15, icons::CLOSE)),
                ),
        )
        .child(el("div").id(&id("body")).class("dialog-body"))
        .child(
            el("div")
                .class("dialog-footer")
                .child(button("btn").id(&id("cancel")).text("Cancel"))
                .child(button("btn btn-primary").id(&id("confirm")).text(confirm)),
        );
    el("div")
        .id(&id("layer"))
        .class("dialog-layer")
        .attr("role", "presentation")
        .flag("hidden", true)
        .child(dialog)
        .build()
}

/// The Snapshot popover (positioned next to the button that opened it).
fn snapshot_menu() -> Element {
    el("div")
        .id("snapshot-menu")
        .class("snapshot-menu")
        .attr("role", "dialog")
        .attr("aria-label", "Document snapshot")
        .attr("tabindex", "-1")
        .flag("hidden", true)
        .child(
            el("div")
                .class("snapshot-menu-header")
                .child(
                    el("div")
                        .class("dialog-heading")
                        .child(el("strong").text("Document snapshot"))
                        .child(el("span").id("snapshot-file").text("Current Typst document")),
                )
                .child(
                    button("dialog-close")
                        .id("snapshot-menu-close")
                        .label("Close snapshots")
                        .child(icon(14, icons::CLOSE)),
                ),
        )
        .child(el("div").id("snapshot-list").class("snapshot-list"))
        .child(
            el("div")
                .class("snapshot-menu-footer")
                .text("A copy is kept automatically after each completed answer."),
        )
        .build()
}

fn composer() -> Element {
    let context = el("div")
        .class("add-context-wrap")
        .id("add-context-wrap")
        .child(
            button("add-context-btn")
                .id("add-context-btn")
                .attr("title", "Attach context for the agent")
                .attr("aria-haspopup", "menu")
                .attr("aria-expanded", "false")
                .attr("aria-controls", "add-context-menu")
                .child(icon(13, icons::PLUS))
                .append_text("Context"),
        )
        .child(
            el("div")
                .id("add-context-menu")
                .class("add-context-menu")
                .attr("role", "menu")
                .attr("aria-label", "Attach context")
                .flag("hidden", true)
                .child(context_option(
                    "selection",
                    "Editor selection",
                    "Attach the text selected in the editor.",
                ))
                .child(context_option(
                    "preview",
                    "Preview screenshot",
                    "Capture the rendered Typst page.",
                ))
                .child(context_option(
                    "opened_image",
                    "Opened image file",
                    "Attach the image open in the preview.",
                )),
        );
    el("div")
        .class("composer")
        .child(
            el("div")
                .class("composer-surface")
                .child(el("div").id("context-attachments").class("context-attachments"))
                .child(
                    el("div").class("input-row").child(
                        el("textarea")
                            .id("user-input")
                            .attr("rows", "1")
                            .attr("placeholder", "Ask something about this document…")
                            .attr("aria-label", "Message"),
                    ),
                )
                .child(
                    el("div")
                        .class("composer-toolbar")
                        .child(el("div").class("context-bar").child(context).child(editor_permission()))
                        .child(
                            el("div")
                                .class("composer-actions")
                                .child(
                                    el("span")
                                        .id("send-shortcut-hint")
                                        .class("send-shortcut")
                                        .attr("aria-hidden", "true")
                                        .text("Enter"),
                                )
                                .child(button("send-btn").id("send-btn").label("Send message (Enter)")),
                        ),
                ),
        )
        .build()
}

/// Builds everything under `#app`; returns the element the chat mounts in.
pub(crate) fn build(app: &Element) -> Result<Element, JsValue> {
    let banner = el("div")
        .id("tab-gate-banner")
        .class("banner tab-gate-banner")
        .attr("role", "status")
        .flag("hidden", true)
        .text(TAB_GATE_TEXT)
        .build();
    let chat = el("div").class("chat-area").build();
    // One `main`: Settings (which takes the chat's place while open), the
    // chat and the composer. The dialogs follow it; each is labelled.
    let main = el("main")
        .class("main")
        .child(settings_panel())
        .child(chat.clone())
        .child(composer())
        .build();
    for part in [
        banner,
        header(),
        toast(),
        main,
        about_dialog(),
        snapshot_menu(),
        confirm_dialog(
            "revert-dialog",
            "revert-dialog",
            "Revert these changes?",
            "Revert changes",
        ),
        confirm_dialog(
            "snapshot-dialog",
            "snapshot-dialog",
            "Restore this snapshot?",
            "Restore",
        ),
        confirm_dialog("sessions-dialog", "sessions-dialog", "Delete this chat?", "Delete chat"),
        confirm_dialog("link-dialog", "link-dialog", "Open this link?", "Open link"),
    ] {
        app.append_child(&part)?;
    }
    Ok(chat)
}
