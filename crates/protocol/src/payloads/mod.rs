//! Typed payloads of the 62 message types, one file per message family.
//!
//! Each struct serialises (camelCase, absent optionals omitted) to exactly the
//! JSON the original sent, and its parser sits next to it; those parsers are
//! crate-private, so [`crate::parse_payload`] stays the only way to build a
//! payload from untrusted JSON. Opaque values that other crates own
//! (settings objects, chat messages, tool records, tool results) stay
//! `serde_json` values here; their own modules validate them.

mod editor;
pub(crate) mod fields;
mod page;
mod recovery;
mod registries;
mod response;
mod runs;
mod sessions;
mod settings;
mod tabs;
mod tools;

pub use editor::{ContextProjection, ContextRequest, DiagnosticsRequest, PreviewRequest};
pub use fields::Empty;
pub use page::{ExpectedDocument, PageApplyEdit, PageCancelRequest, PageShowEditPreview};
pub use recovery::{EditCheckpointRevert, SnapshotRequest, SnapshotRestore, SnapshotScope};
pub use registries::{ProbeMcpServer, RegistryMutation, SaveCustomTools, SaveMcpServers};
pub use response::{ResponseError, ResponsePayload};
pub use runs::{
    AiStreamStart, RunNotice, RunNotices, RunReserve, RunStatus, RunSummary, RunTerminal, StreamBatch, StreamChannel,
    StreamDone, StreamItem,
};
pub use sessions::{GenerateSessionTitle, ProjectRef, SessionCreate, SessionImport, SessionRef, SessionUpdate};
pub use settings::{SaveSettings, SaveTheme, SettingsField};
pub use tabs::{ActiveTabChanged, QuickAttach, QuickAttachDrain, QuickAttachOrigin};
pub use tools::{
    ApprovalAction, ApprovalRequired, ApprovalResolve, CallRef, PreflightAction, PreflightResolve, PreflightWaiting,
    ToolCallInfo, ToolCalls, ToolResult,
};
