//! The one shape of every enum of stable string codes in this crate.
//!
//! Callers branch on a code and the wire carries its string, so each code
//! enum needs the same four things: the variants, every code in order
//! (for tests and generators), the exact wire string, and that string as its
//! JSON and display form. Writing them by hand per enum let them drift.

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

pub(crate) use wire_codes;
