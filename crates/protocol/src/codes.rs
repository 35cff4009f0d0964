//! The one shape of every enum of stable string codes in this crate.
//!
//! Callers branch on a code and the wire carries its string. Every wire
//! string is written once, in the catalogue [`crate::ErrorCode`] (made by
//! `wire_codes!`); a family that may only produce some of them (tool schema
//! checks, endpoint policy) is a `code_subset!` enum whose variants name
//! catalogue variants, so its strings cannot drift from the catalogue.

/// Defines a `Copy` enum of codes with `ALL`, `as_str`, `Serialize` (the
/// wire string) and `Display` (the same string).
macro_rules! wire_codes {
    (
        $(#[$enum_doc:meta])*
        $name:ident {
            $( $(#[$doc:meta])* $variant:ident = $wire:literal, )*
        }
    ) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$doc])* $variant, )*
        }

        impl $name {
            /// Every code, in declaration order, for tests and generators.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The stable wire string.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $wire, )* }
            }

            /// The code a wire string names, if it is one of these. Codes
            /// that arrive from a page or a server are untrusted: an unknown
            /// one is `None`, never a panic.
            pub fn from_wire(wire: &str) -> Option<$name> {
                match wire { $( $wire => Some($name::$variant), )* _ => None }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// Defines a `Copy` enum whose variants are a subset of [`crate::ErrorCode`]'s
/// (same names): `ALL`, `code` (the catalogue variant), `as_str`, `Serialize`
/// and `Display` (the catalogue's string).
macro_rules! code_subset {
    (
        $(#[$enum_doc:meta])*
        $name:ident {
            $( $(#[$doc:meta])* $variant:ident, )*
        }
    ) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$doc])* $variant, )*
        }

        impl $name {
            /// Every code, in declaration order, for tests and generators.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The catalogue code this is.
            pub const fn code(self) -> $crate::ErrorCode {
                match self { $( $name::$variant => $crate::ErrorCode::$variant, )* }
            }

            /// The stable wire string.
            pub const fn as_str(self) -> &'static str {
                self.code().as_str()
            }
        }

        impl From<$name> for $crate::ErrorCode {
            fn from(code: $name) -> $crate::ErrorCode {
                code.code()
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use {code_subset, wire_codes};
