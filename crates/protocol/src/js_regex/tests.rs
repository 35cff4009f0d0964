//! The pattern subset's verdicts and its JavaScript matching semantics.

use super::*;

#[cfg(feature = "patterns")]
fn matches(pattern: &str, text: &str) -> bool {
    compile_pattern(pattern).map(|re| re.is_match(text)).unwrap_or(false)
}

/// Verdicts the pattern text decides alone, so every build gives them.
const TEXT_VERDICTS: &[(&str, Option<PatternError>)] = &[
    ("[", Some(PatternError::Syntax)),
    ("(a+)+$", Some(PatternError::Unsafe)),
    ("^a+a+$", Some(PatternError::Unsafe)),
    ("[a]+b", Some(PatternError::Unsafe)),
    ("^[A-Za-z0-9_-]+$", None),
    ("a|b", Some(PatternError::Unsafe)),
    (r"(a)\1", Some(PatternError::Unsafe)),
    (r"\1", Some(PatternError::Syntax)),
    (r"\k<x>", Some(PatternError::Syntax)),
    ("^a{10001}$", Some(PatternError::Unsafe)),
    ("^a{10000}$", None),
    ("^a{2,1}$", Some(PatternError::Syntax)),
    ("a{", Some(PatternError::Syntax)),
    (r"\a", Some(PatternError::Syntax)),
    (r"^*", Some(PatternError::Syntax)),
    (r"[z-a]", Some(PatternError::Syntax)),
    (r"[\d-z]", Some(PatternError::Syntax)),
    (r"\p{name=Lu}", Some(PatternError::Syntax)),
    ("", None),
    (r"^\p{L}{1,3}$", None),
];

#[test]
fn text_verdicts_follow_the_original() {
    for (pattern, expected) in TEXT_VERDICTS {
        assert_eq!(check_pattern_text(pattern).err(), *expected, "{pattern}");
    }
}

/// Only the automaton knows Unicode property names and sizes: the panel's
/// build lets these pass, and the worker's compile refuses them.
#[test]
fn the_text_check_leaves_names_and_sizes_to_the_compile() {
    let name = if cfg!(feature = "patterns") {
        Some(PatternError::Syntax)
    } else {
        None
    };
    assert_eq!(check_pattern_text(r"\p{Nope}").err(), name);
    assert_eq!(check_pattern_text(r"^\p{Greek}{1,2000}$"), Ok(()));
}

#[cfg(feature = "patterns")]
#[test]
fn subset_verdicts_follow_the_original() {
    for (pattern, expected) in TEXT_VERDICTS {
        assert_eq!(compile_pattern(pattern).err(), *expected, "{pattern}");
    }
    assert_eq!(compile_pattern(r"\p{Nope}").err(), Some(PatternError::Syntax));
}

/// Property names as `new RegExp(p, 'u')` judges them (checked in
/// Node): `name=value` takes only ECMAScript's three names, so the age
/// and segmentation properties (whose tables the wasm does not link) and
/// other spellings are refused as in JavaScript.
#[cfg(feature = "patterns")]
#[test]
fn property_names_follow_ecmascript() {
    let valid = concat!(
        r"\p{Lu} \p{Cased_Letter} \p{Assigned} \p{Any} \P{ASCII} \p{scx=Grek} \p{Script=Greek} ",
        r"\p{General_Category=Lu} \p{Script_Extensions=Greek} \p{Emoji} \p{Emoji_Presentation} ",
        r"\p{Extended_Pictographic} \p{Alphabetic} \p{White_Space} \p{Lowercase} \p{ID_Start} ",
        r"\p{XIDS} \p{Changes_When_Casefolded} \p{Default_Ignorable_Code_Point} ",
        r"\p{Regional_Indicator} \p{Math} \p{Grapheme_Base} \p{Grapheme_Extend} "
    );
    for pattern in valid.split_whitespace() {
        assert!(compile_pattern(pattern).is_ok(), "{pattern} is valid in JavaScript");
    }
    let invalid = concat!(
        r"\p{Age=6.0} \p{gcb=Extend} \p{WB=ALetter} \p{SB=ATerm} \p{Word} \p{ccc=0} ",
        r"\p{Bidi_Class=L} \p{InBasicLatin} \p{Hangul_Syllable_Type=LV} \p{script=Greek} \p{GC=Lu} "
    );
    for pattern in invalid.split_whitespace() {
        assert_eq!(
            compile_pattern(pattern).err(),
            Some(PatternError::Syntax),
            "{pattern} is a SyntaxError"
        );
    }
    assert!(matches(r"^\p{Lu}$", "É"));
    assert!(!matches(r"^\p{Lu}$", "é"));
    assert!(matches(r"^\p{sc=Greek}$", "λ"));
    assert!(matches(r"^\p{Emoji}$", "😀"));
}

/// `\p{Greek}{1,2000}` fits the size limit forwards but not backwards:
/// refused, since the lazy DFA builds the reverse automaton under the same
/// limit.
#[cfg(feature = "patterns")]
#[test]
fn the_reverse_automaton_counts_towards_the_size_limit() {
    assert!(compile_pattern(r"^\p{Greek}{1,1000}$").is_ok());
    assert_eq!(
        compile_pattern(r"^\p{Greek}{1,2000}$").err(),
        Some(PatternError::Unsafe)
    );
}

#[cfg(feature = "patterns")]
#[test]
fn matching_uses_javascript_semantics() {
    assert!(matches("ab", "xaby"));
    assert!(!matches("^ab$", "ab\n"));
    assert!(matches(r"^\d{3}$", "123"));
    assert!(!matches(r"^\d$", "٣"));
    assert!(matches(r"^\w$", "_"));
    assert!(!matches(r"^\w$", "é"));
    assert!(matches(r"^\s$", "\u{feff}"));
    assert!(!matches(r"^.$", "\n"));
    assert!(matches(r"^.$", "😀"));
    assert!(matches(r"\bcat\b", "a cat!"));
    assert!(!matches(r"\bcat\b", "concat"));
    assert!(matches(r"^[^]$", "\n"));
    assert!(!matches(r"[]", "a"));
    assert!(matches(r"^\u{1F600}$", "😀"));
    assert!(matches(r"^\uD83D\uDE00$", "😀"));
    assert!(!matches(r"\uD83D", "😀"));
    assert!(matches(r"^[\u0000-\uFFFF]$", "a"));
    assert!(matches(r"^\x41\cJ$", "A\n"));
    assert!(matches(r"^[\b]$", "\u{8}"));
    assert!(matches(r"^a\/b$", "a/b"));
    assert!(matches(r"^[\w.-]+$", "a.b-c"));
}
