//! A small JavaScript tokenizer for the project's own checks: it finds the
//! string literals of a script (quoted strings and templates without
//! substitutions) and the line each starts on.
//!
//! Comments, regular expression literals and the code inside `${…}` are
//! told apart from strings; whether a `/` starts a regular expression is
//! decided, as usual, by the token before it.

/// A string literal: its content as written (escapes are not decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringLiteral {
    pub text: String,
    pub line: usize,
}

/// Words after which a `/` starts a regular expression, not a division.
const KEYWORDS_BEFORE_EXPRESSION: &[&str] = &[
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
];

/// What came before the current position, for the regex-or-division choice.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Previous {
    /// Start of input, an operator or an opening bracket: an expression starts.
    Operator,
    /// A value (identifier, number, string, closing bracket): an operator follows.
    Value,
}

struct Cursor {
    chars: Vec<char>,
    at: usize,
    line: usize,
    previous: Previous,
    /// One entry per open `{`: whether it is a template's `${`.
    braces: Vec<bool>,
    /// One entry per open `(`: whether it holds the condition of `if`,
    /// `while`, `for` or `with`, after which a statement (perhaps a regex) starts.
    parens: Vec<bool>,
    /// The last word read, to recognise those keywords.
    last_word: String,
    strings: Vec<StringLiteral>,
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

    fn skip_line_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    fn skip_block_comment(&mut self) {
        self.bump();
        self.bump();
        while let Some(c) = self.bump() {
            if c == '*' && self.peek(0) == Some('/') {
                self.bump();
                break;
            }
        }
    }

    fn quoted(&mut self, quote: char) {
        let line = self.line;
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
                c if c == quote => break,
                '\n' => break,
                other => text.push(other),
            }
        }
        self.strings.push(StringLiteral { text, line });
        self.previous = Previous::Value;
    }

    /// Template text up to the closing backtick or a `${`. `whole` is true
    /// when the template started here (not after a substitution), so a
    /// template without substitutions counts as one string literal.
    fn template(&mut self, whole: bool) {
        let line = self.line;
        let mut text = String::new();
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    text.push(c);
                    if let Some(next) = self.bump() {
                        text.push(next);
                    }
                }
                '`' => {
                    if whole {
                        self.strings.push(StringLiteral { text, line });
                    }
                    self.previous = Previous::Value;
                    return;
                }
                '$' if self.peek(0) == Some('{') => {
                    self.bump();
                    self.braces.push(true);
                    self.previous = Previous::Operator;
                    return;
                }
                other => text.push(other),
            }
        }
    }

    fn regex(&mut self) {
        self.bump();
        let mut in_class = false;
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                '[' => in_class = true,
                ']' => in_class = false,
                '/' if !in_class => break,
                '\n' => break,
                _ => {}
            }
        }
        while self.peek(0).is_some_and(|c| c.is_alphanumeric()) {
            self.bump();
        }
        self.previous = Previous::Value;
    }

    fn word(&mut self) {
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            if c.is_alphanumeric() || c == '_' || c == '$' {
                text.push(c);
                self.bump();
            } else {
                break;
            }
        }
        self.previous = if KEYWORDS_BEFORE_EXPRESSION.contains(&text.as_str()) {
            Previous::Operator
        } else {
            Previous::Value
        };
        self.last_word = text;
    }

    fn punct(&mut self, c: char) {
        self.bump();
        match c {
            '{' => {
                self.braces.push(false);
                self.previous = Previous::Operator;
            }
            '}' => {
                if self.braces.pop() == Some(true) {
                    self.template(false);
                } else {
                    // A block's end: a statement (perhaps a regex) may follow.
                    self.previous = Previous::Operator;
                }
            }
            '(' => {
                let condition = matches!(self.last_word.as_str(), "if" | "while" | "for" | "with");
                self.parens.push(condition && self.previous == Previous::Value);
                self.previous = Previous::Operator;
            }
            ')' => {
                let condition = self.parens.pop().unwrap_or(false);
                self.previous = if condition { Previous::Operator } else { Previous::Value };
            }
            ']' => self.previous = Previous::Value,
            _ => self.previous = Previous::Operator,
        }
        if c != '(' {
            self.last_word.clear();
        }
    }
}

/// Every string literal of `source`, in order.
pub fn string_literals(source: &str) -> Vec<StringLiteral> {
    let mut cursor = Cursor {
        chars: source.chars().collect(),
        at: 0,
        line: 1,
        previous: Previous::Operator,
        braces: Vec::new(),
        parens: Vec::new(),
        last_word: String::new(),
        strings: Vec::new(),
    };
    while let Some(c) = cursor.peek(0) {
        match c {
            '/' if cursor.peek(1) == Some('/') => cursor.skip_line_comment(),
            '/' if cursor.peek(1) == Some('*') => cursor.skip_block_comment(),
            '/' if cursor.previous == Previous::Operator => cursor.regex(),
            '\'' | '"' => cursor.quoted(c),
            '`' => {
                cursor.bump();
                cursor.template(true);
            }
            c if c.is_alphanumeric() || c == '_' || c == '$' => cursor.word(),
            c if c.is_whitespace() => {
                cursor.bump();
            }
            other => cursor.punct(other),
        }
    }
    cursor.strings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(source: &str) -> Vec<String> {
        string_literals(source).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn finds_quoted_strings_and_plain_templates() {
        assert_eq!(
            texts(r#"const a = 'x', b = "y\"z"; f(`t`);"#),
            vec!["x", r#"y\"z"#, "t"]
        );
        let lines: Vec<usize> = string_literals("\n'a'\n\n\"b\"").iter().map(|s| s.line).collect();
        assert_eq!(lines, vec![2, 4]);
    }

    #[test]
    fn comments_and_regexes_hold_no_strings() {
        let source = "// 'no'\n/* \"no\" */ const r = /['\"]+/g; x = a / 'yes' / b; if (x) /\"/.test(y);";
        assert_eq!(texts(source), vec!["yes"]);
    }

    #[test]
    fn substitutions_are_code_and_templates_with_them_are_not_literals() {
        let source = "`a ${ 'inner' + `b ${ {k: 'deep'}.k }` } c`; 'after'";
        assert_eq!(texts(source), vec!["inner", "deep", "after"]);
    }

    #[test]
    fn a_regex_after_a_keyword_or_a_block() {
        assert_eq!(texts("return /'/.test(s); } /\"/.exec(t); 'z'"), vec!["z"]);
    }
}
