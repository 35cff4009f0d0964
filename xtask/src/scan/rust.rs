//! A small Rust tokenizer for the project's own checks.
//!
//! It is not a parser: it only has to know where comments, strings, char
//! literals and lifetimes begin and end, so that a brace, a path or a quoted
//! word is never taken from inside one of them. Comments are dropped; every
//! other token keeps the line it starts on.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword (raw identifiers lose their `r#`).
    Ident,
    /// A string literal of any flavour; `text` is its content as written
    /// (escapes are not decoded, raw delimiters are removed).
    Str,
    /// A char or byte literal.
    Char,
    /// A lifetime or loop label.
    Lifetime,
    /// A number literal.
    Number,
    /// Punctuation: `::` is one token, everything else one character.
    Punct,
}

/// One token and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    pub line: usize,
}

impl Token {
    /// Whether this is the punctuation `text`.
    pub fn is_punct(&self, text: &str) -> bool {
        self.kind == Kind::Punct && self.text == text
    }

    /// Whether this is the identifier or keyword `text`.
    pub fn is_ident(&self, text: &str) -> bool {
        self.kind == Kind::Ident && self.text == text
    }
}

struct Cursor {
    chars: Vec<char>,
    at: usize,
    line: usize,
    tokens: Vec<Token>,
}

impl Cursor {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.at).copied()?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn push(&mut self, kind: Kind, text: String, line: usize) {
        self.tokens.push(Token { kind, text, line });
    }

    fn line_comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            self.bump();
        }
    }

    /// Block comments nest in Rust.
    fn block_comment(&mut self) {
        self.bump();
        self.bump();
        let mut depth = 1;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (Some('/'), Some('*')) => {
                    self.bump();
                    self.bump();
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.bump();
                    self.bump();
                    depth -= 1;
                }
                (Some(_), _) => {
                    self.bump();
                }
                (None, _) => break,
            }
        }
    }

    /// A `"…"` string after its prefix; escapes are kept as written.
    fn quoted(&mut self, line: usize) {
        self.bump();
        let mut text = String::new();
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    text.push(c);
                    if let Some(next) = self.bump() {
                        text.push(next);
                    }
                }
                '"' => break,
                other => text.push(other),
            }
        }
        self.push(Kind::Str, text, line);
    }

    /// `r"…"`, `r#"…"#` and so on, with the cursor on the first `#` or `"`.
    fn raw(&mut self, line: usize) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            self.bump();
            hashes += 1;
        }
        self.bump();
        let mut text = String::new();
        while let Some(c) = self.bump() {
            if c == '"' && (0..hashes).all(|i| self.peek(i) == Some('#')) {
                for _ in 0..hashes {
                    self.bump();
                }
                break;
            }
            text.push(c);
        }
        self.push(Kind::Str, text, line);
    }

    /// A `'` opens a char literal or a lifetime; only a closing quote after
    /// one (possibly escaped) character makes it a literal.
    fn quote(&mut self, line: usize) {
        let is_char = matches!((self.peek(1), self.peek(2)), (Some('\\'), _) | (Some(_), Some('\'')));
        self.bump();
        if is_char {
            let mut text = String::new();
            while let Some(c) = self.bump() {
                match c {
                    '\\' => {
                        text.push(c);
                        if let Some(next) = self.bump() {
                            text.push(next);
                        }
                    }
                    '\'' => break,
                    other => text.push(other),
                }
            }
            self.push(Kind::Char, text, line);
        } else {
            let name = self.word();
            self.push(Kind::Lifetime, name, line);
        }
    }

    fn word(&mut self) -> String {
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            if c.is_alphanumeric() || c == '_' {
                text.push(c);
                self.bump();
            } else {
                break;
            }
        }
        text
    }

    /// An identifier, or a prefixed literal (`b"…"`, `r#"…"#`, `br"…"`,
    /// `c"…"`, `b'…'`) or raw identifier (`r#type`).
    fn ident_or_prefixed(&mut self, line: usize) {
        let prefix_len = match (self.peek(0), self.peek(1), self.peek(2)) {
            (Some('b' | 'c'), Some('r'), Some('"' | '#')) => Some(2),
            (Some('r'), Some('"'), _) => Some(1),
            (Some('r'), Some('#'), Some('"' | '#')) => Some(1),
            (Some('b' | 'c'), Some('"'), _) => Some(1),
            _ => None,
        };
        if let Some(len) = prefix_len {
            let raw = self.peek(len - 1) == Some('r');
            for _ in 0..len {
                self.bump();
            }
            if raw {
                self.raw(line)
            } else {
                self.quoted(line)
            }
            return;
        }
        if self.peek(0) == Some('b') && self.peek(1) == Some('\'') {
            self.bump();
            self.quote(line);
            return;
        }
        if self.peek(0) == Some('r') && self.peek(1) == Some('#') {
            self.bump();
            self.bump();
        }
        let text = self.word();
        self.push(Kind::Ident, text, line);
    }

    fn number(&mut self, line: usize) {
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            let exponent_sign = matches!(c, '+' | '-') && text.ends_with(['e', 'E']) && !text.starts_with("0x");
            if c.is_alphanumeric() || c == '_' || exponent_sign || (c == '.' && self.decimal_point(&text)) {
                text.push(c);
                self.bump();
            } else {
                break;
            }
        }
        self.push(Kind::Number, text, line);
    }

    /// `1.5` continues a number; `1..2` and `x.0.len()` do not.
    fn decimal_point(&self, text: &str) -> bool {
        !text.contains('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit())
    }
}

/// The tokens of `source`, comments removed.
pub fn tokenize(source: &str) -> Vec<Token> {
    let mut cursor = Cursor {
        chars: source.chars().collect(),
        at: 0,
        line: 1,
        tokens: Vec::new(),
    };
    while let Some(c) = cursor.peek(0) {
        let line = cursor.line;
        match c {
            '/' if cursor.peek(1) == Some('/') => cursor.line_comment(),
            '/' if cursor.peek(1) == Some('*') => cursor.block_comment(),
            '"' => cursor.quoted(line),
            '\'' => cursor.quote(line),
            c if c.is_alphabetic() || c == '_' => cursor.ident_or_prefixed(line),
            c if c.is_ascii_digit() => cursor.number(line),
            c if c.is_whitespace() => {
                cursor.bump();
            }
            ':' if cursor.peek(1) == Some(':') => {
                cursor.bump();
                cursor.bump();
                cursor.push(Kind::Punct, "::".to_owned(), line);
            }
            other => {
                cursor.bump();
                cursor.push(Kind::Punct, other.to_string(), line);
            }
        }
    }
    cursor.tokens
}

/// The index of the token that closes the bracket opened at `open`
/// (`{`, `(` or `[`), or the last token when it never closes.
pub fn matching(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (index, token) in tokens.iter().enumerate().skip(open) {
        if token.kind != Kind::Punct {
            continue;
        }
        match token.text.as_str() {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return index;
                }
            }
            _ => {}
        }
    }
    tokens.len().saturating_sub(1)
}

/// Whether the tokens at `at` are the attribute `#[cfg(test)]`; returns the
/// index after it. `#![cfg(test)]` (a whole test file) is recognised as well.
fn cfg_test_at(tokens: &[Token], at: usize) -> Option<(usize, bool)> {
    let mut i = at;
    if !tokens.get(i)?.is_punct("#") {
        return None;
    }
    i += 1;
    let inner = tokens.get(i)?.is_punct("!");
    if inner {
        i += 1;
    }
    let expected = ["[", "cfg", "(", "test", ")", "]"];
    for word in expected {
        let token = tokens.get(i)?;
        if token.text != word {
            return None;
        }
        i += 1;
    }
    Some((i, inner))
}

/// Skips the item that starts at `at` (after its attributes): up to its `;`
/// or the end of its first top-level `{…}` block. Returns the last index.
fn item_end(tokens: &[Token], at: usize) -> usize {
    let mut i = at;
    while i < tokens.len() {
        let token = &tokens[i];
        if token.is_punct("#") {
            // Another attribute of the same item.
            let open = i + usize::from(tokens.get(i + 1).is_some_and(|t| t.is_punct("!"))) + 1;
            i = matching(tokens, open) + 1;
            continue;
        }
        if token.is_punct(";") {
            return i;
        }
        if token.is_punct("{") {
            return matching(tokens, i);
        }
        if token.is_punct("(") || token.is_punct("[") {
            i = matching(tokens, i) + 1;
            continue;
        }
        i += 1;
    }
    tokens.len().saturating_sub(1)
}

/// For each token, whether it belongs to test-only code: an item under
/// `#[cfg(test)]`, or everything after `#![cfg(test)]`.
pub fn test_mask(tokens: &[Token]) -> Vec<bool> {
    let mut mask = vec![false; tokens.len()];
    let mut i = 0;
    while i < tokens.len() {
        if let Some((after, inner)) = cfg_test_at(tokens, i) {
            let end = if inner {
                tokens.len() - 1
            } else {
                item_end(tokens, after)
            };
            for flag in &mut mask[i..=end.max(i)] {
                *flag = true;
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(source: &str) -> Vec<String> {
        tokenize(source).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn comments_and_strings_hide_their_contents() {
        let tokens = tokenize("a /* { /* nested } */ } */ b // { c\n\"{ d\" 'e' '{' x");
        let kinds: Vec<(Kind, &str)> = tokens.iter().map(|t| (t.kind, t.text.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (Kind::Ident, "a"),
                (Kind::Ident, "b"),
                (Kind::Str, "{ d"),
                (Kind::Char, "e"),
                (Kind::Char, "{"),
                (Kind::Ident, "x"),
            ]
        );
        assert_eq!(tokens[2].line, 2);
    }

    #[test]
    fn raw_strings_escapes_lifetimes_and_prefixes() {
        let tokens = tokenize(r###"r#"a "quoted" }"# "x\"}" fn f<'a>(s: &'a str) { b'}' br"}" r#type c"z" '\'' }"###);
        let strs: Vec<&str> = tokens
            .iter()
            .filter(|t| t.kind == Kind::Str)
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(strs, vec![r#"a "quoted" }"#, r#"x\"}"#, "}", "z"]);
        assert_eq!(tokens.iter().filter(|t| t.kind == Kind::Lifetime).count(), 2);
        assert!(tokens.iter().any(|t| t.is_ident("type")));
        assert_eq!(tokens.iter().filter(|t| t.is_punct("}")).count(), 1);
    }

    #[test]
    fn paths_keep_their_double_colons_and_numbers_their_dots() {
        assert_eq!(texts("crate::a::B"), vec!["crate", "::", "a", "::", "B"]);
        assert_eq!(texts("1.5 0..2 x.0"), vec!["1.5", "0", ".", ".", "2", "x", ".", "0"]);
    }

    #[test]
    fn test_items_are_masked() {
        let source =
            "fn a() {}\n#[cfg(test)]\n#[allow(x)]\nmod tests { fn b() { } }\nfn c() {}\n#[cfg(test)] mod more;";
        let tokens = tokenize(source);
        let mask = test_mask(&tokens);
        let live: Vec<&str> = tokens
            .iter()
            .zip(&mask)
            .filter(|(t, masked)| !**masked && t.kind == Kind::Ident)
            .map(|(t, _)| t.text.as_str())
            .collect();
        assert_eq!(live, vec!["fn", "a", "fn", "c"]);
        let whole = tokenize("#![cfg(test)]\nfn x() {}");
        assert!(test_mask(&whole).iter().all(|m| *m));
    }

    #[test]
    fn matching_finds_the_closing_bracket() {
        let tokens = tokenize("{ ( [ ] ) { } } x");
        assert_eq!(matching(&tokens, 0), 7);
        assert_eq!(tokens[matching(&tokens, 1)].text, ")");
    }
}
