//! Tests of the integrations.
