//! Endpoint and header policy: any URL text and any header record is accepted
//! or refused with a code; accepted endpoints keep their invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::endpoint_policy::{
    HeaderPolicy, InsecureAcknowledgement, InsecureConsent, Transport, is_loopback_hostname, validate_endpoint_url,
    validate_header_record,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = is_loopback_hostname(&text);
    for consent in [
        InsecureConsent::default(),
        InsecureConsent {
            confirmed: true,
            confirmed_origin: None,
        },
        InsecureConsent {
            confirmed: false,
            confirmed_origin: Some("http://example.com"),
        },
    ] {
        for input in [text.to_string(), format!("http://{text}"), format!("https://{text}/x")] {
            if let Ok(endpoint) = validate_endpoint_url(&input, consent) {
                assert!(endpoint.url.starts_with("http://") || endpoint.url.starts_with("https://"));
                assert_eq!(
                    endpoint.transport == Transport::Https,
                    endpoint.url.starts_with("https://")
                );
                let ack = InsecureAcknowledgement::for_endpoint(Some(&endpoint), true);
                assert_eq!(
                    ack.insecure_transport_acknowledged,
                    endpoint.transport == Transport::AcknowledgedHttp
                );
            }
        }
    }
    if let Ok(headers) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = validate_header_record(Some(&headers), HeaderPolicy::Plain);
        let _ = validate_header_record(Some(&headers), HeaderPolicy::Mcp);
        if let Some(record) = headers.as_object() {
            let _ = InsecureAcknowledgement::normalize(record, "endpoint");
        }
    }
});
