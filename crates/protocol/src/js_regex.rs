//! JSON-Schema `pattern`s: ECMAScript (`u` flag) syntax, the original's
//! linear-time subset, and translation to `regex-automata`.
//!
//! Tool schemas come from users and MCP servers, so a pattern must be both
//! valid ECMAScript — the original compiled it with `new RegExp(p, 'u')` — and
//! inside the conservative subset that cannot backtrack badly: no groups,
//! alternation or backreferences, at most one variable-length quantifier,
//! bounds up to 10,000, and `^…$` anchoring whenever a quantifier is used.
//! Accepted patterns are translated to an equivalent `regex-automata`
//! expression (JavaScript's ASCII `\d \w \b`, its own `\s` and `.`) and run
//! as an unanchored search, like `RegExp.prototype.test`.
//!
//! Known differences: Unicode property names are checked by `regex-syntax`,
//! which is more lenient about spelling than ECMAScript and knows a few more
//! binary properties (`name=value` takes only ECMAScript's
//! `General_Category`/`Script`/`Script_Extensions` names); escapes of lone
//! surrogates can never match (Rust strings hold none); and a pattern whose
//! automaton would exceed the size limit counts as unsafe.
//!
//! Compiling takes protocol's `patterns` feature, which links regex-automata
//! and its Unicode tables; the worker has it. The panel does not: it checks
//! a form's patterns with [`check_pattern_text`] alone, and the worker's
//! compile, when it saves the tool, has the last word.

use crate::limits::{self, to_usize};
#[cfg(feature = "patterns")]
use regex_automata::meta::Regex;
use std::collections::HashSet;
use std::fmt::Write as _;

/// Why a pattern is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternError {
    /// Not a valid ECMAScript `u`-flag regular expression (`SCHEMA_PATTERN`).
    Syntax,
    /// Valid, but outside the linear-time subset (`SCHEMA_PATTERN_UNSAFE`).
    Unsafe,
}

/// Largest automaton a pattern may compile to.
#[cfg(feature = "patterns")]
const NFA_SIZE_LIMIT: usize = 4 * 1024 * 1024;

/// Checks a pattern as far as its text decides: ECMAScript syntax and the
/// linear-time subset, without building an automaton.
///
/// This is the whole check in a build without `patterns` (the panel's live
/// check of a form). Two verdicts need the automaton and so only
/// `compile_pattern` gives them: whether a `\p{…}` names a Unicode property
/// `regex-syntax` knows, and whether the automaton fits the size limit. A
/// pattern this accepts may still be refused there, always with a code it
/// could have given; the worker compiles every pattern when it saves or
/// discovers a tool, so nothing unchecked is ever kept or matched.
pub fn check_pattern_text(pattern: &str) -> Result<(), PatternError> {
    checked_translation(pattern).map(drop)
}

/// The translated expression of a pattern that passes the text check.
fn checked_translation(pattern: &str) -> Result<String, PatternError> {
    let translated = translate(pattern)?;
    if !is_linear_pattern_subset(pattern) {
        return Err(PatternError::Unsafe);
    }
    translated.ok_or(PatternError::Unsafe)
}

/// Checks and compiles a pattern.
#[cfg(feature = "patterns")]
pub fn compile_pattern(pattern: &str) -> Result<Regex, PatternError> {
    let translated = checked_translation(pattern)?;
    let regex = Regex::builder()
        .configure(Regex::config().nfa_size_limit(Some(NFA_SIZE_LIMIT)))
        .build(&translated)
        .map_err(|error| {
            if error.size_limit().is_some() {
                PatternError::Unsafe
            } else {
                PatternError::Syntax
            }
        })?;
    Ok(regex)
}

/// The original's conservative subset check, applied to the pattern text.
pub fn is_linear_pattern_subset(pattern: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut escaped = false;
    let mut in_class = false;
    let mut variable_quantifiers = 0;
    let mut has_quantifier = false;
    let mut index = 0;
    while index < chars.len() {
        let ch = chars[index];
        if escaped {
            if ('1'..='9').contains(&ch) || ch == 'k' {
                return false;
            }
            escaped = false;
            index += 1;
            continue;
        }
        match ch {
            '\\' => escaped = true,
            '[' => in_class = true,
            ']' if in_class => in_class = false,
            _ if in_class => {}
            '(' | ')' | '|' => return false,
            '*' | '+' | '?' => {
                has_quantifier = true;
                variable_quantifiers += 1;
                if variable_quantifiers > 1 {
                    return false;
                }
            }
            '{' => {
                if let Some(close) = chars[index + 1..].iter().position(|c| *c == '}') {
                    let close = index + 1 + close;
                    let body: String = chars[index + 1..close].iter().collect();
                    if let Some((min, max)) = quantifier_body(&body) {
                        has_quantifier = true;
                        let bound = u64::from(limits::MAX_PATTERN_QUANTIFIER_BOUND);
                        let minimum = decimal(min);
                        let maximum = max.filter(|m| !m.is_empty()).map_or(minimum, decimal);
                        if minimum > bound || maximum > bound {
                            return false;
                        }
                        if max.is_some_and(|m| m.is_empty() || maximum != minimum) {
                            variable_quantifiers += 1;
                            if variable_quantifiers > 1 {
                                return false;
                            }
                        }
                        index = close;
                    }
                }
            }
            _ => {}
        }
        index += 1;
    }
    let anchored = chars.first() == Some(&'^') && chars.last() == Some(&'$') && !is_escaped_at(&chars, chars.len() - 1);
    !escaped && !in_class && (!has_quantifier || anchored)
}

/// `^(\d+)(?:,(\d*))?$` → (min digits, Some(max digits) when a comma is present).
fn quantifier_body(body: &str) -> Option<(&str, Option<&str>)> {
    let (min, max) = match body.split_once(',') {
        Some((min, max)) => (min, Some(max)),
        None => (body, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    (!min.is_empty() && digits(min) && max.is_none_or(digits)).then_some((min, max))
}

/// A decimal digit string as a number, saturating (only compared to small bounds).
fn decimal(digits: &str) -> u64 {
    digits.bytes().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    })
}

fn is_escaped_at(chars: &[char], index: usize) -> bool {
    chars[..index].iter().rev().take_while(|c| **c == '\\').count() % 2 == 1
}

// ----- ECMAScript syntax and translation -----

const JS_SPACE: &str =
    r"\x{9}-\x{d}\x{20}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}";
/// The only property names ECMAScript allows in `\p{name=value}`, spelt
/// exactly so (its table of non-binary Unicode property aliases). The rule is
/// written here rather than left to `regex-syntax`, which would also accept
/// other spellings and properties whose tables are not linked into the wasm.
const NAMED_PROPERTIES: [&str; 6] = ["General_Category", "gc", "Script", "sc", "Script_Extensions", "scx"];
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";
const ANYTHING: &str = r"[\x{0}-\x{10FFFF}]";

/// A class member: a code-point range or a ready-made class fragment.
enum ClassItem {
    Range(u32, u32),
    Set(String),
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    groups: usize,
    names: HashSet<String>,
    out: String,
    /// Cleared when the pattern uses a feature the translation cannot carry
    /// (groups, alternation, lookaround, backreferences); such patterns are
    /// outside the linear subset anyway.
    translatable: bool,
}

type Syntax<T> = Result<T, PatternError>;

/// Parses `pattern` as an ECMAScript `u`-flag regular expression. `Ok(None)`
/// means valid but untranslatable.
fn translate(pattern: &str) -> Syntax<Option<String>> {
    let chars: Vec<char> = pattern.chars().collect();
    let (groups, names) = count_groups(&chars)?;
    let mut parser = Parser {
        chars,
        pos: 0,
        groups,
        names,
        out: String::new(),
        translatable: true,
    };
    parser.disjunction()?;
    if parser.pos != parser.chars.len() {
        return Err(PatternError::Syntax);
    }
    Ok(parser.translatable.then_some(parser.out))
}

fn count_groups(chars: &[char]) -> Syntax<(usize, HashSet<String>)> {
    let mut groups = 0;
    let mut names = HashSet::new();
    let mut index = 0;
    let mut in_class = false;
    while index < chars.len() {
        match chars[index] {
            '\\' => index += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                if chars.get(index + 1) != Some(&'?') {
                    groups += 1;
                } else if chars.get(index + 2) == Some(&'<') && !matches!(chars.get(index + 3), Some('=' | '!')) {
                    groups += 1;
                    let name: String = chars[index + 3..].iter().take_while(|c| **c != '>').collect();
                    if !names.insert(name) {
                        return Err(PatternError::Syntax);
                    }
                }
            }
            _ => {}
        }
        index += 1;
    }
    Ok((groups, names))
}

fn push_char(out: &mut String, c: u32) {
    let _ = write!(out, r"\x{{{c:x}}}");
}

fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self) -> Syntax<()> {
        self.alternative()?;
        while self.eat('|') {
            self.translatable = false;
            self.out.push('|');
            self.alternative()?;
        }
        Ok(())
    }

    fn alternative(&mut self) -> Syntax<()> {
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.term()?;
        }
        Ok(())
    }

    fn term(&mut self) -> Syntax<()> {
        let Some(c) = self.peek() else {
            return Err(PatternError::Syntax);
        };
        match c {
            '^' | '$' => {
                self.pos += 1;
                self.out.push(c);
                return self.no_quantifier();
            }
            '\\' if matches!(self.peek_at(1), Some('b' | 'B')) => {
                let negated = self.peek_at(1) == Some('B');
                self.pos += 2;
                self.out.push_str(if negated { r"(?-u:\B)" } else { r"(?-u:\b)" });
                return self.no_quantifier();
            }
            '(' => {
                self.pos += 1;
                if self.eat('?') {
                    if self.eat('=') || self.eat('!') {
                        self.translatable = false;
                        self.out.push('(');
                        self.disjunction()?;
                        self.close_group()?;
                        return self.no_quantifier();
                    }
                    if self.peek() == Some('<') && matches!(self.peek_at(1), Some('=' | '!')) {
                        self.pos += 2;
                        self.translatable = false;
                        self.out.push('(');
                        self.disjunction()?;
                        self.close_group()?;
                        return self.no_quantifier();
                    }
                    if self.eat(':') {
                        self.translatable = false;
                    } else if self.eat('<') {
                        self.group_name()?;
                        self.translatable = false;
                    } else {
                        return Err(PatternError::Syntax);
                    }
                } else {
                    self.translatable = false;
                }
                self.out.push_str("(?:");
                self.disjunction()?;
                self.close_group()?;
            }
            '*' | '+' | '?' | '{' | '}' | ']' | ')' | '|' => return Err(PatternError::Syntax),
            '[' => {
                self.pos += 1;
                let class = self.class()?;
                self.out.push_str(&class);
            }
            '.' => {
                self.pos += 1;
                self.out.push_str(r"[^\x{a}\x{d}\x{2028}\x{2029}]");
            }
            '\\' => {
                self.pos += 1;
                self.atom_escape()?;
            }
            other => {
                self.pos += 1;
                push_char(&mut self.out, u32::from(other));
            }
        }
        self.quantifier()
    }

    fn close_group(&mut self) -> Syntax<()> {
        if self.eat(')') {
            self.out.push(')');
            Ok(())
        } else {
            Err(PatternError::Syntax)
        }
    }

    fn group_name(&mut self) -> Syntax<String> {
        let mut name = String::new();
        loop {
            match self.peek() {
                Some('>') => {
                    self.pos += 1;
                    break;
                }
                Some(c) if c == '$' || c == '_' || c.is_alphanumeric() => {
                    if name.is_empty() && c.is_numeric() {
                        return Err(PatternError::Syntax);
                    }
                    name.push(c);
                    self.pos += 1;
                }
                _ => return Err(PatternError::Syntax),
            }
        }
        if name.is_empty() {
            return Err(PatternError::Syntax);
        }
        Ok(name)
    }

    /// After an assertion: a quantifier is a syntax error in `u` mode.
    fn no_quantifier(&self) -> Syntax<()> {
        match self.peek() {
            Some('*' | '+' | '?') => Err(PatternError::Syntax),
            Some('{') if self.brace_quantifier_len().is_some() => Err(PatternError::Syntax),
            _ => Ok(()),
        }
    }

    /// Length of a `{n}`, `{n,}` or `{n,m}` at the cursor.
    fn brace_quantifier_len(&self) -> Option<usize> {
        let rest = &self.chars[self.pos..];
        let close = rest.iter().position(|c| *c == '}')?;
        let body: String = rest[1..close].iter().collect();
        quantifier_body(&body).map(|_| close + 1)
    }

    fn quantifier(&mut self) -> Syntax<()> {
        match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.pos += 1;
                self.out.push(c);
            }
            Some('{') => {
                let Some(len) = self.brace_quantifier_len() else {
                    return Err(PatternError::Syntax);
                };
                let body: String = self.chars[self.pos + 1..self.pos + len - 1].iter().collect();
                self.pos += len;
                let (min, max) = quantifier_body(&body).ok_or(PatternError::Syntax)?;
                if let Some(max) = max.filter(|m| !m.is_empty())
                    && compare_decimal(min, max) == std::cmp::Ordering::Greater
                {
                    return Err(PatternError::Syntax);
                }
                // Bounds beyond the subset's limit make the pattern unsafe;
                // they are still valid syntax, so only the translation stops.
                let limit = u64::from(limits::MAX_PATTERN_QUANTIFIER_BOUND);
                let (lo, hi) = (decimal(min), max.filter(|m| !m.is_empty()).map(decimal));
                if lo > limit || hi.is_some_and(|h| h > limit) {
                    self.translatable = false;
                }
                match (max, hi) {
                    (None, _) => {
                        let _ = write!(self.out, "{{{lo}}}");
                    }
                    (Some(_), None) => {
                        let _ = write!(self.out, "{{{lo},}}");
                    }
                    (Some(_), Some(hi)) => {
                        let _ = write!(self.out, "{{{lo},{hi}}}");
                    }
                }
            }
            _ => return Ok(()),
        }
        if self.eat('?') {
            self.out.push('?');
        }
        Ok(())
    }

    fn atom_escape(&mut self) -> Syntax<()> {
        let Some(c) = self.peek() else {
            return Err(PatternError::Syntax);
        };
        match c {
            '1'..='9' => {
                let start = self.pos;
                while self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    self.pos += 1;
                }
                let digits: String = self.chars[start..self.pos].iter().collect();
                if decimal(&digits) > self.groups as u64 {
                    return Err(PatternError::Syntax);
                }
                self.translatable = false;
                Ok(())
            }
            'k' => {
                self.pos += 1;
                if !self.eat('<') {
                    return Err(PatternError::Syntax);
                }
                let name = self.group_name()?;
                if !self.names.contains(&name) {
                    return Err(PatternError::Syntax);
                }
                self.translatable = false;
                Ok(())
            }
            _ => {
                match self.class_escape(false)? {
                    ClassItem::Range(lo, _) if is_surrogate(lo) => self.out.push_str(NOTHING),
                    ClassItem::Range(lo, _) => push_char(&mut self.out, lo),
                    ClassItem::Set(set) => {
                        let _ = write!(self.out, "[{set}]");
                    }
                }
                Ok(())
            }
        }
    }

    /// An escape after `\` shared by atoms and classes. Inside classes `\b`
    /// is backspace and `\-` is allowed.
    fn class_escape(&mut self, in_class: bool) -> Syntax<ClassItem> {
        let Some(c) = self.peek() else {
            return Err(PatternError::Syntax);
        };
        self.pos += 1;
        let single = |c: u32| Ok(ClassItem::Range(c, c));
        match c {
            'd' => Ok(ClassItem::Set("0-9".to_owned())),
            'D' => Ok(ClassItem::Set("[^0-9]".to_owned())),
            'w' => Ok(ClassItem::Set("0-9A-Za-z_".to_owned())),
            'W' => Ok(ClassItem::Set("[^0-9A-Za-z_]".to_owned())),
            's' => Ok(ClassItem::Set(JS_SPACE.to_owned())),
            'S' => Ok(ClassItem::Set(format!("[^{JS_SPACE}]"))),
            'p' | 'P' => {
                if !self.eat('{') {
                    return Err(PatternError::Syntax);
                }
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
                {
                    self.pos += 1;
                }
                let body: String = self.chars[start..self.pos].iter().collect();
                if !self.eat('}') || body.is_empty() || body.matches('=').count() > 1 {
                    return Err(PatternError::Syntax);
                }
                if body
                    .split_once('=')
                    .is_some_and(|(name, _)| !NAMED_PROPERTIES.contains(&name))
                {
                    return Err(PatternError::Syntax);
                }
                let property = format!(r"\{c}{{{body}}}");
                // Whether the name is a property at all takes the Unicode
                // tables, which only a `patterns` build links.
                #[cfg(feature = "patterns")]
                if regex_automata::util::syntax::parse(&property).is_err() {
                    return Err(PatternError::Syntax);
                }
                Ok(ClassItem::Set(property))
            }
            'f' => single(0xC),
            'n' => single(0xA),
            'r' => single(0xD),
            't' => single(0x9),
            'v' => single(0xB),
            'b' if in_class => single(0x8),
            '-' if in_class => single(u32::from('-')),
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.pos += 1;
                    single(u32::from(letter) % 32)
                }
                _ => Err(PatternError::Syntax),
            },
            '0' => {
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    Err(PatternError::Syntax)
                } else {
                    single(0)
                }
            }
            'x' => {
                let value = self.hex_digits(2)?;
                single(value)
            }
            'u' => {
                let value = self.unicode_escape()?;
                single(value)
            }
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '/' => {
                single(u32::from(c))
            }
            _ => Err(PatternError::Syntax),
        }
    }

    fn hex_digits(&mut self, count: usize) -> Syntax<u32> {
        let mut value = 0u32;
        for _ in 0..count {
            let digit = self.peek().and_then(|c| c.to_digit(16)).ok_or(PatternError::Syntax)?;
            value = value * 16 + digit;
            self.pos += 1;
        }
        Ok(value)
    }

    fn unicode_escape(&mut self) -> Syntax<u32> {
        if self.eat('{') {
            let mut value = 0u32;
            let mut digits = 0;
            while let Some(digit) = self.peek().and_then(|c| c.to_digit(16)) {
                value = value.saturating_mul(16).saturating_add(digit);
                digits += 1;
                self.pos += 1;
            }
            if digits == 0 || value > 0x10FFFF || !self.eat('}') {
                return Err(PatternError::Syntax);
            }
            return Ok(value);
        }
        let lead = self.hex_digits(4)?;
        if (0xD800..=0xDBFF).contains(&lead) && self.peek() == Some('\\') && self.peek_at(1) == Some('u') {
            let saved = self.pos;
            self.pos += 2;
            if let Ok(trail) = self.hex_digits(4)
                && (0xDC00..=0xDFFF).contains(&trail)
            {
                return Ok(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00));
            }
            self.pos = saved;
        }
        Ok(lead)
    }

    fn class_atom(&mut self) -> Syntax<ClassItem> {
        match self.peek() {
            None => Err(PatternError::Syntax),
            Some('\\') => {
                self.pos += 1;
                self.class_escape(true)
            }
            Some(c) => {
                self.pos += 1;
                Ok(ClassItem::Range(u32::from(c), u32::from(c)))
            }
        }
    }

    /// Parses a class after `[` and returns its translation.
    fn class(&mut self) -> Syntax<String> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        loop {
            match self.peek() {
                None => return Err(PatternError::Syntax),
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let first = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.pos += 1;
                let second = self.class_atom()?;
                match (first, second) {
                    (ClassItem::Range(lo, _), ClassItem::Range(hi, _)) if lo <= hi => {
                        items.push(ClassItem::Range(lo, hi));
                    }
                    _ => return Err(PatternError::Syntax),
                }
            } else {
                items.push(first);
            }
        }
        let mut body = String::new();
        for item in items {
            match item {
                ClassItem::Set(set) => body.push_str(&set),
                ClassItem::Range(lo, hi) => {
                    // Rust strings hold no surrogates, so those code points are dropped.
                    for (a, b) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
                        if a <= b {
                            push_char(&mut body, a);
                            if b > a {
                                body.push('-');
                                push_char(&mut body, b);
                            }
                        }
                    }
                }
            }
        }
        Ok(match (body.is_empty(), negated) {
            (true, false) => NOTHING.to_owned(),
            (true, true) => ANYTHING.to_owned(),
            (false, false) => format!("[{body}]"),
            (false, true) => format!("[^{body}]"),
        })
    }
}

fn compare_decimal(a: &str, b: &str) -> std::cmp::Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Longest accepted pattern, for callers that check length first.
pub const MAX_PATTERN_CHARS: usize = to_usize(limits::MAX_PATTERN_CHARS);

#[cfg(test)]
mod tests;
