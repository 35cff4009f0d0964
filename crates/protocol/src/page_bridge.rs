//! Constants of the page bridge: the isolated-world script, the main-world
//! runtime and the worker all follow these numbers. The page scripts read them
//! from `src/content/protocol-constants.js`, which `cargo xtask codegen`
//! generates from this module; `cargo xtask verify` fails when that file drifts.

/// Version of the bridge contract between the isolated and the main world. A
/// page runtime of another version is disposed and replaced.
pub const BRIDGE_VERSION: u32 = 7;

/// Most page requests the isolated world keeps in flight at once.
pub const MAX_PENDING_REQUESTS: u32 = 64;

/// How long a page request may stay unanswered.
pub const REQUEST_TIMEOUT_MS: u32 = 12_000;

/// Interval at which the isolated world re-posts its handshake until the main
/// world answers.
pub const HANDSHAKE_RETRY_MS: u32 = 50;

/// Delay before the isolated world loads the main-world files itself when no
/// handshake answer has come (the registered script did not run).
pub const MAIN_RECOVERY_DELAY_MS: u32 = 200;

/// Upper bound of the recovery loader's exponential back-off.
pub const MAIN_RECOVERY_MAX_DELAY_MS: u32 = 5_000;

/// How many handshake nonces the main world remembers (most recent first).
pub const MAX_REMEMBERED_NONCES: u32 = 8;

/// Shortest time between two "Add to agent" clicks that count: the page's
/// buttons ignore faster clicks (the original's image button waited 900 ms),
/// and the isolated world forwards at most one quick attach per interval, so
/// a script of the page cannot flood the worker and the panel with them.
pub const QUICK_ATTACH_MIN_INTERVAL_MS: u32 = 900;

/// Id of the dynamically registered main-world content script.
pub const MAIN_CONTENT_SCRIPT_ID: &str = "typst-side-agent-main";

/// Ids of registrations written by older versions, removed on every start.
pub const LEGACY_MAIN_CONTENT_SCRIPT_IDS: &[&str] = &["typst-agent-main"];

/// Pages the content scripts run on.
pub const TYPST_MATCHES: &[&str] = &["https://typst.app/*"];

/// Files of the isolated world, in load order (also the manifest's entry).
pub const ISOLATED_WORLD_FILES: &[&str] = &[
    "src/content/protocol-constants.js",
    "src/content/bridge-protocol.js",
    "src/content/isolated.js",
];

/// Files of the main world, in load order (the dynamic registration and the
/// isolated world's recovery loader both use this list).
pub const MAIN_WORLD_FILES: &[&str] = &[
    "src/content/builtins.js",
    "src/content/protocol-constants.js",
    "src/content/bridge-protocol.js",
    "src/content/workspace.js",
    "src/content/diagnostics.js",
    "src/content/edit-guard.js",
    "src/content/inline-diff.js",
    "src/content/quick-attach.js",
    "src/content/main.js",
];

/// Longest `requestId`, `runId` or `targetRequestId` the page accepts.
pub const MAX_REQUEST_ID_CHARS: u32 = 200;

/// The exact fields of a `PAGE_GET_PROBE` answer, each a boolean.
pub const PROBE_FIELDS: &[&str] = &["editor", "selection", "typstCanvas", "previewImage", "improvePanel"];
