//! Event-stream framing: line ends, chunk boundaries anywhere, comments,
//! notifications and other answers skipped, the malformed-event budget,
//! the end of the stream, and the byte cap of an endless stream.

use super::support::{Rig, code, endpoint};
use crate::fakes::{FakeChunk, FakeReply};
use crate::mcp::McpError;
use crate::mcp::sse::SseScanner;
use protocol::ErrorCode;
use serde_json::{Value, json};

/// Feeds `chunks` to a scanner for request `id`.
fn scan(chunks: &[&[u8]], id: u64) -> Result<Value, McpError> {
    let mut scanner = SseScanner::new(Some(id));
    for chunk in chunks {
        if let Some(found) = scanner.push(chunk)? {
            return Ok(found.value);
        }
    }
    scanner.finish().map(|found| found.value)
}

fn scan_text(chunks: &[&str], id: u64) -> Result<Value, McpError> {
    let bytes: Vec<&[u8]> = chunks.iter().map(|c| c.as_bytes()).collect();
    scan(&bytes, id)
}

#[test]
fn crlf_comments_arbitrary_chunks_and_multiline_data() {
    // The original's vector.
    let chunks = [
        ": keepalive\r",
        "\ndata: {\"jsonrpc\":\"2.0\",\r\n",
        "data: \"id\":7,\"result\":{\"tools\":[]}}\r\n\r",
        "\n",
    ];
    assert_eq!(
        scan_text(&chunks, 7).map(|m| m["result"].clone()),
        Ok(json!({"tools": []}))
    );
}

/// A stream with every line end, a comment, a notification, an answer to
/// another request, ignored fields, and the answer in two `data:` lines.
const MIXED: &str = ": comment\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n\
data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}\n\nid: 3\rretry: 10\rdata:{\"jsonrpc\":\"2.0\",\r\n\
data: \"id\":7,\"result\":{\"text\":\"h\u{e9}llo\"}}\r\r";

#[test]
fn every_split_of_the_same_bytes_gives_the_same_answer() {
    let bytes = MIXED.as_bytes();
    let expected = Ok(json!("h\u{e9}llo"));
    assert_eq!(scan(&[bytes], 7).map(|m| m["result"]["text"].clone()), expected);
    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        assert_eq!(
            scan(&[a, b], 7).map(|m| m["result"]["text"].clone()),
            expected,
            "split at {i}"
        );
        for j in i..=bytes.len() {
            let (b1, b2) = bytes[i..].split_at(j - i);
            assert_eq!(
                scan(&[a, b1, b2], 7).map(|m| m["result"]["text"].clone()),
                expected,
                "{i}/{j}"
            );
        }
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(scan(&singles, 7).map(|m| m["result"]["text"].clone()), expected);
}

#[test]
fn a_carriage_return_that_ends_a_chunk_waits_for_the_next() {
    // Were the `\r` a line end of its own, the `\n` would end the event
    // after half of its JSON.
    let chunks = ["data: {\"jsonrpc\":\"2.0\",\r", "\ndata: \"id\":1}\r\n\r\n"];
    assert_eq!(scan_text(&chunks, 1), Ok(json!({"jsonrpc": "2.0", "id": 1})));
    // A lone `\r` is a line end once the next byte is not `\n`.
    let chunks = ["data: {\"jsonrpc\":\"2.0\",\"id\":1}\r", "\r"];
    assert_eq!(scan_text(&chunks, 1), Ok(json!({"jsonrpc": "2.0", "id": 1})));
}

#[test]
fn the_end_of_the_stream_completes_a_last_line_and_a_last_event() {
    assert_eq!(scan_text(&["data: {\"id\":1}\n"], 1), Ok(json!({"id": 1})));
    assert_eq!(scan_text(&["data: {\"id\":1}"], 1), Ok(json!({"id": 1})));
    assert_eq!(scan_text(&["data: {\"id\":1}\r"], 1), Ok(json!({"id": 1})));
    assert_eq!(
        scan_text(&["data: {\"jsonrpc\":\"2.0\",\"id\":2}\n\n"], 1).map_err(|e| e.code),
        Err(ErrorCode::McpStreamEnded)
    );
    assert_eq!(scan_text(&[], 1).map_err(|e| e.code), Err(ErrorCode::McpStreamEnded));
    assert_eq!(
        scan_text(&[": only a comment\n\n"], 1).map_err(|e| e.code),
        Err(ErrorCode::McpStreamEnded)
    );
}

#[test]
fn ids_match_as_javascript_compares_them() {
    assert!(scan_text(&["data: {\"id\":7.0}\n\n"], 7).is_ok());
    assert_eq!(
        scan_text(&["data: {\"id\":\"7\"}\n\n"], 7).map_err(|e| e.code),
        Err(ErrorCode::McpStreamEnded)
    );
    assert_eq!(
        scan_text(&["data: {\"id\":null}\n\n"], 7).map_err(|e| e.code),
        Err(ErrorCode::McpStreamEnded)
    );
    // An error with a null id is the answer: the server could not read ours.
    let found = scan_text(&["data: {\"id\":null,\"error\":{\"code\":-32700}}\n\n"], 7);
    assert_eq!(found.map(|m| m["error"]["code"].clone()), Ok(json!(-32700)));
    // `data` lines are joined with `\n`; only `data:` counts.
    assert_eq!(
        scan_text(&["data: {\"id\":\ndata: 7}\ndata\n\n"], 7),
        Ok(json!({"id": 7}))
    );
}

#[test]
fn a_byte_order_mark_at_the_start_is_dropped() {
    assert_eq!(
        scan(&[b"\xEF\xBB", b"\xBFdata: {\"id\":1}\n\n"], 1),
        Ok(json!({"id": 1}))
    );
}

#[test]
fn eight_malformed_events_are_tolerated_and_a_ninth_fails() {
    let eight = "data: not-json\n\n".repeat(8) + "data: {\"id\":1}\n\n";
    assert_eq!(scan_text(&[&eight], 1), Ok(json!({"id": 1})));
    // The original's vector: nine malformed events.
    let nine: Vec<&str> = std::iter::repeat_n("data: not-json\n\n", 9).collect();
    assert_eq!(scan_text(&nine, 1).map_err(|e| e.code), Err(ErrorCode::McpMalformedSse));
}

#[test]
fn one_byte_chunks_cost_no_rescans() {
    // Quadratic rescanning would take minutes here; a linear scan takes
    // milliseconds.
    let mut long = String::from("data: {\"id\":1,\"pad\":\"");
    long.push_str(&"x".repeat(400_000));
    long.push_str("\"}\n\n");
    let mut scanner = SseScanner::new(Some(1));
    let mut found = None;
    for byte in long.as_bytes().chunks(1) {
        if let Some(message) = scanner.push(byte).expect("no failure") {
            found = Some(message);
        }
    }
    assert_eq!(found.map(|m| m.value["id"].clone()), Some(json!(1)));
    let comments = ":\n".repeat(200_000);
    let mut scanner = SseScanner::new(Some(1));
    for byte in comments.as_bytes().chunks(1) {
        assert_eq!(scanner.push(byte).map_err(|e| e.code), Ok(None));
    }
}

fn stream(chunks: Vec<FakeChunk>, kind: &str) -> Rig {
    let kind = kind.to_owned();
    Rig::new(move |_| {
        Ok(FakeReply {
            status: 200,
            headers: vec![("content-type".to_owned(), kind.clone())],
            chunks: chunks.clone(),
        })
    })
}

#[test]
fn an_endless_stream_is_cut_at_two_mebibytes() {
    let notification = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n".repeat(20);
    let chunks: Vec<FakeChunk> = std::iter::repeat_n(FakeChunk::Data(notification.into_bytes()), 2_000).collect();
    let rig = stream(chunks, "text/event-stream");
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpResponseTooLarge);

    // One line that never ends.
    let chunks = vec![
        FakeChunk::Data(b"data: ".to_vec()),
        FakeChunk::Data(vec![b'x'; 2_097_152]),
    ];
    let rig = stream(chunks, "text/event-stream");
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpResponseTooLarge);

    // The original's vector: one chunk one byte over the cap.
    let rig = stream(vec![FakeChunk::Data(vec![0; 2_097_153])], "text/event-stream");
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpResponseTooLarge);

    // A stream that goes quiet without answering runs into the timeout.
    let chunks = vec![FakeChunk::Data(b": ping\n\n".to_vec()), FakeChunk::Stall];
    let rig = stream(chunks, "text/event-stream");
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::Timeout);
}

#[test]
fn the_content_type_picks_the_parser_in_any_case() {
    let body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"t\"}]}}\n\n";
    let rig = stream(
        vec![FakeChunk::Data(body.as_bytes().to_vec())],
        "Text/Event-Stream; charset=utf-8",
    );
    let listing = rig.discover(&endpoint(), true).expect("parsed as a stream").listing;
    assert_eq!(listing.tools.len(), 1);

    let json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}";
    let rig = stream(
        vec![FakeChunk::Data(json.as_bytes().to_vec())],
        "application/json; charset=utf-8",
    );
    assert!(rig.discover(&endpoint(), true).is_ok());
}
