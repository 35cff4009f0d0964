//! JavaScript value semantics the wire format inherits from the original.
//!
//! The original extension measured strings in UTF-16 code units, treated `1.0`
//! as an integer, trimmed with ECMAScript's whitespace set and printed numbers
//! with `Number.prototype.toString`. Every module that must reproduce one of
//! those facts exactly goes through the helpers here, so the rules live in one
//! place.

use serde_json::{Map, Value};

/// Largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Length in UTF-16 code units (JavaScript's `string.length`).
///
/// Counted on the bytes, not by decoding each char: every char starts with
/// one non-continuation byte, and a char outside the BMP (the only kind that
/// takes two units) starts with a byte of `0xF0` or more. The wasm builds are
/// optimised for size, where a decoding loop over a 600 KB document costs
/// milliseconds each time a bound is checked.
pub fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    text.bytes().map(utf16_units_started_by).sum()
}

/// UTF-16 units of the char a UTF-8 byte starts (0 for a continuation byte).
const fn utf16_units_started_by(byte: u8) -> usize {
    (byte & 0xC0 != 0x80) as usize + (byte >= 0xF0) as usize
}

/// Number of Unicode code points (`[...string].length`).
pub fn code_point_len(text: &str) -> usize {
    text.chars().count()
}

/// The longest prefix of `text` that is at most `max_units` UTF-16 code units
/// long. A surrogate pair is never split (JavaScript's `slice` would leave a
/// lone surrogate, which a Rust string cannot hold), so the result can be one
/// unit shorter than JavaScript's.
pub fn truncate_utf16(text: &str, max_units: usize) -> &str {
    let mut units = 0;
    for (index, ch) in text.char_indices() {
        units += ch.len_utf16();
        if units > max_units {
            return &text[..index];
        }
    }
    text
}

/// Byte index in `text` of the UTF-16 offset `offset`, or `None` when the
/// offset is past the end or falls inside a surrogate pair.
pub fn utf16_offset_to_byte(text: &str, offset: usize) -> Option<usize> {
    let mut units = 0;
    for (index, ch) in text.char_indices() {
        if units == offset {
            return Some(index);
        }
        if units > offset {
            return None;
        }
        units += ch.len_utf16();
    }
    (units == offset).then_some(text.len())
}

/// ECMAScript `WhiteSpace` or `LineTerminator` (what `trim()` and `\s` remove).
pub fn is_js_whitespace(ch: char) -> bool {
    matches!(
        ch,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// JavaScript's `String.prototype.trim`.
pub fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_whitespace)
}

/// A string with at least one non-whitespace character.
pub fn is_non_blank(text: &str) -> bool {
    !js_trim(text).is_empty()
}

/// `value.trim().replace(/\s+/g, ' ')`.
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for ch in js_trim(text).chars() {
        if is_js_whitespace(ch) {
            pending_space = true;
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(ch);
        }
    }
    out
}

/// The number as JavaScript sees it (every JSON number is a double there).
pub fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        _ => None,
    }
}

/// `Number.isInteger(value)`: a finite number without a fractional part, so
/// JSON `1.0` counts.
pub fn is_integer(value: &Value) -> bool {
    as_number(value).is_some_and(|n| n.is_finite() && n.trunc() == n)
}

/// A non-negative integer that a JavaScript number holds exactly; the typed
/// messages store these as `u64`, so larger ones are refused rather than
/// rounded.
pub fn as_safe_uint(value: &Value) -> Option<u64> {
    let n = as_number(value)?;
    if n.is_finite() && n.trunc() == n && (0.0..=MAX_SAFE_INTEGER).contains(&n) {
        // The range check above makes the conversion exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(n as u64)
    } else {
        None
    }
}

/// A JavaScript number as JSON, the way `JSON.stringify` writes it: an
/// integer when the value is whole and within [`MAX_SAFE_INTEGER`] (so
/// `Date.now()` timestamps and byte counts stay integers), a float otherwise.
pub fn number_value(n: f64) -> Value {
    if n.is_finite() && n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        // Exact: the value is a whole number within the safe integer range.
        #[allow(clippy::cast_possible_truncation)]
        let integer = n as i64;
        Value::from(integer)
    } else {
        Value::from(n)
    }
}

/// JavaScript truthiness of a JSON value (`undefined` is `None`).
pub fn is_truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(_)) => value.and_then(as_number).is_some_and(|n| n != 0.0 && !n.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `a || b` over optional JSON values.
pub fn or_else<'a>(value: Option<&'a Value>, fallback: &'a Value) -> &'a Value {
    match value {
        Some(v) if is_truthy(Some(v)) => v,
        _ => fallback,
    }
}

/// `value != null` (neither `undefined` nor `null`).
pub fn is_present(value: Option<&Value>) -> bool {
    !matches!(value, None | Some(Value::Null))
}

/// JavaScript's `String(value)` for a JSON value.
pub fn js_string(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => as_number(value).map(number_to_string).unwrap_or_default(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => js_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".to_owned(),
    }
}

/// `Number.prototype.toString()` (radix 10) for a finite or non-finite double.
pub fn number_to_string(n: f64) -> String {
    if n.is_nan() {
        return "NaN".to_owned();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if n == 0.0 {
        return "0".to_owned();
    }
    let sign = if n < 0.0 { "-" } else { "" };
    // Rust's `{:e}` prints the shortest digits that round-trip, as JavaScript
    // does; only the layout differs.
    let formatted = format!("{:e}", n.abs());
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((formatted.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let point = exponent + 1; // position of the decimal point after the first digit
    let body = if k <= point && point <= 21 {
        let zeros = usize::try_from(point - k).unwrap_or(0);
        format!("{digits}{}", "0".repeat(zeros))
    } else if 0 < point && point <= 21 {
        let split = usize::try_from(point).unwrap_or(0);
        format!("{}.{}", &digits[..split], &digits[split..])
    } else if -6 < point && point <= 0 {
        let zeros = usize::try_from(-point).unwrap_or(0);
        format!("0.{}{digits}", "0".repeat(zeros))
    } else {
        let exp = point - 1;
        let exp_sign = if exp < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        if rest.is_empty() {
            format!("{first}e{exp_sign}{}", exp.abs())
        } else {
            format!("{first}.{rest}e{exp_sign}{}", exp.abs())
        }
    };
    format!("{sign}{body}")
}

/// `JSON.stringify(value)` for a JSON value, including JavaScript's number
/// layout (`1.0` prints as `1`). Object keys keep the map's order.
pub fn json_stringify(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out, false);
    out
}

/// `JSON.stringify(value).length`: the UTF-16 length of [`json_stringify`],
/// counted without building the text (a bound checked on a 600 KB page
/// answer would otherwise copy it char by char first).
pub fn json_utf16_len(value: &Value) -> usize {
    let mut count = Utf16Count(0);
    write_json(value, &mut count, false);
    count.0
}

/// Where [`write_json`] writes: the text itself, or only its UTF-16 length.
trait JsonOut {
    /// Text that needs no escaping (punctuation, literals, numbers).
    fn raw(&mut self, text: &str);
    /// A JSON string literal of `text`, quotes included.
    fn string(&mut self, text: &str);
}

impl JsonOut for String {
    fn raw(&mut self, text: &str) {
        self.push_str(text);
    }

    fn string(&mut self, text: &str) {
        write_json_string(text, self);
    }
}

/// Counts the UTF-16 units [`write_json`] would write.
struct Utf16Count(usize);

impl JsonOut for Utf16Count {
    fn raw(&mut self, text: &str) {
        self.0 += utf16_len(text);
    }

    /// The length of [`write_json_string`]'s output: two quotes, each
    /// escape's length, and otherwise the char's own units (every escaped
    /// char is ASCII, so a byte decides).
    fn string(&mut self, text: &str) {
        let body: usize = text
            .bytes()
            .map(|byte| match short_escape(byte) {
                Some(escape) => escape.len(),
                None if byte < FIRST_UNESCAPED => UNICODE_ESCAPE_LEN,
                None => utf16_units_started_by(byte),
            })
            .sum();
        self.0 += body + 2;
    }
}

/// Canonical JSON: like [`json_stringify`] but object keys sorted by UTF-16
/// code units (JavaScript's default `sort()`).
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out, true);
    out
}

fn write_json(value: &Value, out: &mut impl JsonOut, sorted: bool) {
    match value {
        Value::Null => out.raw("null"),
        Value::Bool(b) => out.raw(if *b { "true" } else { "false" }),
        Value::Number(_) => {
            let n = as_number(value).unwrap_or(f64::NAN);
            if n.is_finite() {
                out.raw(&number_to_string(n));
            } else {
                out.raw("null");
            }
        }
        Value::String(s) => out.string(s),
        Value::Array(items) => {
            out.raw("[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.raw(",");
                }
                write_json(item, out, sorted);
            }
            out.raw("]");
        }
        Value::Object(map) => {
            out.raw("{");
            let mut keys: Vec<&String> = map.keys().collect();
            if sorted {
                sort_by(&mut keys, |a, b| a.encode_utf16().cmp(b.encode_utf16()));
            }
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.raw(",");
                }
                out.string(key);
                out.raw(":");
                if let Some(child) = map.get(key) {
                    write_json(child, out, sorted);
                }
            }
            out.raw("}");
        }
    }
}

fn write_json_string(text: &str, out: &mut String) {
    out.push('"');
    for ch in text.chars() {
        let ascii = u8::try_from(ch).ok().filter(u8::is_ascii);
        match ascii.map(|byte| (byte, short_escape(byte))) {
            Some((_, Some(escape))) => out.push_str(escape),
            Some((byte, None)) if byte < FIRST_UNESCAPED => out.push_str(&format!("\\u{byte:04x}")),
            _ => out.push(ch),
        }
    }
    out.push('"');
}

/// The two-char escape `JSON.stringify` writes for `byte`, if it has one.
const fn short_escape(byte: u8) -> Option<&'static str> {
    match byte {
        b'"' => Some("\\\""),
        b'\\' => Some("\\\\"),
        0x08 => Some("\\b"),
        0x0c => Some("\\f"),
        b'\n' => Some("\\n"),
        b'\r' => Some("\\r"),
        b'\t' => Some("\\t"),
        _ => None,
    }
}

/// Chars below this without a short escape are written as `\u00XX`.
const FIRST_UNESCAPED: u8 = 0x20;

/// The length of a `\u00XX` escape.
const UNICODE_ESCAPE_LEN: usize = 6;

/// Deep equality with JavaScript's `Object.is` for leaves: numbers compare as
/// doubles (so `1` equals `1.0`) but `0` and `-0` differ; objects compare by
/// key set regardless of order.
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => {
            let (x, y) = (as_number(a), as_number(b));
            match (x, y) {
                (Some(x), Some(y)) => x == y && (x != 0.0 || x.is_sign_negative() == y.is_sign_negative()),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(l, r)| deep_equal(l, r)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, l)| y.get(key).is_some_and(|r| deep_equal(l, r)))
        }
        _ => a == b,
    }
}

/// The value as an object, if it is one (`isRecord`).
pub fn as_record(value: &Value) -> Option<&Map<String, Value>> {
    value.as_object()
}

/// Sorts `items` stably by `compare`, like `Array.prototype.sort` with a
/// comparator (stable since ES2019, which the original's orders rely on).
///
/// Why not `slice::sort_by`: the standard library's stable sort is generic
/// over the element and the comparator, and each pair compiles to several
/// kilobytes of wasm (its merge runs and small-sort networks); the worker had
/// a dozen of them. Here only the element swap is generic: the order is
/// found by one sort of indices with a `dyn` comparator, compiled once, and
/// then applied in place.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    let order = sorted_order(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    apply_order(items, order);
}

/// The indices `0..len` in stable order of `compare`.
fn sorted_order(len: usize, compare: &mut dyn FnMut(usize, usize) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves `items[order[i]]` to position `i` for every `i`, following each
/// cycle of the permutation with swaps (a visited position is marked by
/// taking its source out of `order`).
fn apply_order<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut current = start;
        while order[current] != DONE {
            let source = std::mem::replace(&mut order[current], DONE);
            if source == start {
                break;
            }
            items.swap(current, source);
            current = source;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sort_by_is_stable_and_matches_the_standard_sort() {
        let mut items: Vec<(u8, usize)> = [3u8, 1, 2, 1, 3, 0, 2, 1].iter().copied().zip(0..).collect();
        let mut expected = items.clone();
        expected.sort_by_key(|item| item.0);
        sort_by(&mut items, |a, b| a.0.cmp(&b.0));
        assert_eq!(items, expected);
        assert_eq!(
            items.iter().map(|item| item.1).collect::<Vec<_>>(),
            [5, 1, 3, 7, 2, 6, 0, 4]
        );
        let mut reversed: Vec<String> = ["a", "c", "b"].iter().map(|s| s.to_string()).collect();
        sort_by(&mut reversed, |a, b| b.cmp(a));
        assert_eq!(reversed, ["c", "b", "a"]);
        let mut empty: Vec<u8> = Vec::new();
        sort_by(&mut empty, |a, b| a.cmp(b));
        assert!(empty.is_empty());
    }

    proptest::proptest! {
        #[test]
        fn sort_by_equals_the_standard_stable_sort(keys in proptest::collection::vec(0u8..6, 0..64)) {
            let mut items: Vec<(u8, usize)> = keys.into_iter().zip(0..).collect();
            let mut expected = items.clone();
            expected.sort_by_key(|item| std::cmp::Reverse(item.0));
            sort_by(&mut items, |a, b| b.0.cmp(&a.0));
            proptest::prop_assert_eq!(items, expected);
        }
    }

    #[test]
    fn numbers_print_like_javascript() {
        for (n, s) in [
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (1.5e-10, "1.5e-10"),
            (2.5e25, "2.5e+25"),
            (-0.0, "0"),
        ] {
            assert_eq!(number_to_string(n), s, "{n}");
        }
    }

    #[test]
    fn utf16_helpers() {
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(truncate_utf16("a😀b", 2), "a");
        assert_eq!(truncate_utf16("a😀b", 3), "a😀");
        assert_eq!(utf16_offset_to_byte("a😀b", 2), None);
        assert_eq!(utf16_offset_to_byte("a😀b", 3), Some(5));
        assert_eq!(utf16_offset_to_byte("a😀b", 4), Some(6));
        assert_eq!(utf16_offset_to_byte("a😀b", 5), None);
    }

    #[test]
    fn numbers_become_integer_json_when_whole_and_safe() {
        assert_eq!(number_value(1_700_000_000_000.0).to_string(), "1700000000000");
        assert_eq!(number_value(-3.0).to_string(), "-3");
        assert_eq!(number_value(MAX_SAFE_INTEGER).to_string(), "9007199254740991");
        assert!(number_value(0.0).is_i64());
        assert_eq!(number_value(1.5).to_string(), "1.5");
        assert!(number_value(MAX_SAFE_INTEGER + 2.0).is_f64());
        assert!(number_value(-(MAX_SAFE_INTEGER + 2.0)).is_f64());
        assert_eq!(number_value(f64::NAN), Value::Null);
        assert_eq!(number_value(f64::INFINITY), Value::Null);
    }

    #[test]
    fn integer_and_equality_follow_javascript() {
        assert!(is_integer(&json!(1.0)));
        assert!(!is_integer(&json!(1.5)));
        assert!(deep_equal(&json!({"a": 1, "b": [2.0]}), &json!({"b": [2], "a": 1.0})));
        assert!(!deep_equal(&json!(0), &json!(-0.0)));
        assert_eq!(canonical_json(&json!({"b": 1.0, "a": "x\n"})), r#"{"a":"x\n","b":1}"#);
        assert_eq!(collapse_whitespace("  a \u{a0}\t b  "), "a b");
    }

    /// Strings of the chars whose lengths differ: ASCII, the escaped
    /// controls and quotes, two- and three-byte chars and astral ones.
    fn tricky_text() -> impl proptest::strategy::Strategy<Value = String> {
        let chars = proptest::sample::select(vec![
            'a',
            ' ',
            '"',
            '\\',
            '\n',
            '\r',
            '\t',
            '\u{8}',
            '\u{c}',
            '\u{0}',
            '\u{1f}',
            '\u{7f}',
            'é',
            '\u{2028}',
            '中',
            '\u{ffff}',
            '😀',
            '\u{10ffff}',
        ]);
        proptest::collection::vec(chars, 0..40).prop_map(|chars| chars.into_iter().collect())
    }

    fn json_tree() -> impl proptest::strategy::Strategy<Value = Value> {
        let leaf = proptest::prop_oneof![
            proptest::strategy::Just(Value::Null),
            proptest::bool::ANY.prop_map(Value::Bool),
            proptest::num::f64::NORMAL.prop_map(number_value),
            proptest::num::i64::ANY.prop_map(Value::from),
            tricky_text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            proptest::prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec((tricky_text(), inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        #[test]
        fn utf16_len_counts_what_decoding_counts(text in tricky_text()) {
            proptest::prop_assert_eq!(utf16_len(&text), text.chars().map(char::len_utf16).sum::<usize>());
            proptest::prop_assert_eq!(utf16_len(&text), text.encode_utf16().count());
        }

        #[test]
        fn json_utf16_len_is_the_length_of_the_stringified_text(value in json_tree()) {
            proptest::prop_assert_eq!(json_utf16_len(&value), utf16_len(&json_stringify(&value)));
        }
    }

    #[test]
    fn json_utf16_len_of_escapes_and_astral_chars() {
        let value = json!({"k\"": ["\u{1}\n😀é", 1.5, null, true, -0.0]});
        assert_eq!(
            json_stringify(&value),
            "{\"k\\\"\":[\"\\u0001\\n😀é\",1.5,null,true,0]}"
        );
        assert_eq!(json_utf16_len(&value), 39);
        // Every short escape, the last `\u00XX` control, and DEL (not escaped), as JSON.stringify writes them.
        let escapes = json!("\u{8}\u{c}\t\r\\\u{1f}\u{7f}");
        assert_eq!(json_stringify(&escapes), "\"\\b\\f\\t\\r\\\\\\u001f\u{7f}\"");
        assert_eq!(json_utf16_len(&escapes), 19);
    }
}
