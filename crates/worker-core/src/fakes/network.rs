//! A scripted HTTP peer: answers each request from a closure with a status,
//! headers and a body delivered in the given chunks (or stalling until the
//! request is cancelled), and records every request.

use crate::cancel::Cancellation;
use crate::platform::{HttpRequest, HttpResponse, Network, NetworkError, ResponseBody};
use std::cell::RefCell;
use std::collections::VecDeque;

/// One piece of a scripted response body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FakeChunk {
    Data(Vec<u8>),
    Error(String),
    /// Waits until the request is cancelled, like a server that stops sending.
    Stall,
}

pub(crate) struct FakeReply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) chunks: Vec<FakeChunk>,
}

impl FakeReply {
    /// A reply with one content type and text split into the given chunks.
    pub(crate) fn text(status: u16, content_type: &str, chunks: &[&str]) -> Self {
        FakeReply {
            status,
            headers: vec![("content-type".to_owned(), content_type.to_owned())],
            chunks: chunks.iter().map(|c| FakeChunk::Data(c.as_bytes().to_vec())).collect(),
        }
    }
}

type Responder = Box<dyn FnMut(&HttpRequest) -> Result<FakeReply, NetworkError>>;

pub(crate) struct FakeNetwork {
    responder: RefCell<Responder>,
    requests: RefCell<Vec<HttpRequest>>,
}

impl Default for FakeNetwork {
    fn default() -> Self {
        FakeNetwork::answering(|request| Err(NetworkError::Failed(format!("No route to {}", request.url))))
    }
}

impl FakeNetwork {
    pub(crate) fn answering(responder: impl FnMut(&HttpRequest) -> Result<FakeReply, NetworkError> + 'static) -> Self {
        FakeNetwork {
            responder: RefCell::new(Box::new(responder)),
            requests: RefCell::new(Vec::new()),
        }
    }
    pub(crate) fn set_responder(
        &self,
        responder: impl FnMut(&HttpRequest) -> Result<FakeReply, NetworkError> + 'static,
    ) {
        *self.responder.borrow_mut() = Box::new(responder);
    }
    pub(crate) fn requests(&self) -> Vec<HttpRequest> {
        self.requests.borrow().clone()
    }
}

pub(crate) struct FakeBody {
    chunks: VecDeque<FakeChunk>,
    cancel: Cancellation,
}

impl ResponseBody for FakeBody {
    async fn next_chunk(&mut self) -> Option<Result<Vec<u8>, NetworkError>> {
        if self.cancel.is_cancelled() {
            return Some(Err(NetworkError::Cancelled));
        }
        match self.chunks.pop_front()? {
            FakeChunk::Data(bytes) => Some(Ok(bytes)),
            FakeChunk::Error(message) => Some(Err(NetworkError::Failed(message))),
            FakeChunk::Stall => {
                self.cancel.cancelled().await;
                Some(Err(NetworkError::Cancelled))
            }
        }
    }
}

impl Network for FakeNetwork {
    type Body = FakeBody;

    async fn fetch(&self, request: HttpRequest, cancel: &Cancellation) -> Result<HttpResponse<FakeBody>, NetworkError> {
        self.requests.borrow_mut().push(request.clone());
        if cancel.is_cancelled() {
            return Err(NetworkError::Cancelled);
        }
        let reply = (self.responder.borrow_mut())(&request)?;
        Ok(HttpResponse {
            status: reply.status,
            headers: reply.headers,
            body: FakeBody {
                chunks: reply.chunks.into(),
                cancel: cancel.clone(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::block_on;
    use futures::FutureExt;

    fn request() -> HttpRequest {
        HttpRequest {
            url: "https://model.test/v1".into(),
            method: "POST".into(),
            headers: Vec::new(),
            body: None,
        }
    }

    #[test]
    fn delivers_scripted_chunks_then_ends() {
        let network = FakeNetwork::answering(|_| Ok(FakeReply::text(200, "text/plain", &["ab", "c"])));
        let cancel = Cancellation::new();
        let mut response = block_on(network.fetch(request(), &cancel))
            .map_err(|_| "fetch failed")
            .expect("response");
        assert_eq!(response.header("Content-Type"), Some("text/plain"));
        assert_eq!(block_on(response.body.next_chunk()), Some(Ok(b"ab".to_vec())));
        assert_eq!(block_on(response.body.next_chunk()), Some(Ok(b"c".to_vec())));
        assert_eq!(block_on(response.body.next_chunk()), None);
        assert_eq!(network.requests().len(), 1);
    }

    #[test]
    fn a_stalled_body_ends_when_cancelled() {
        let network = FakeNetwork::answering(|_| {
            Ok(FakeReply {
                status: 200,
                headers: Vec::new(),
                chunks: vec![FakeChunk::Stall, FakeChunk::Error("x".into())],
            })
        });
        let cancel = Cancellation::new();
        let mut response = block_on(network.fetch(request(), &cancel))
            .map_err(|_| "fetch failed")
            .expect("response");
        let mut read = Box::pin(response.body.next_chunk());
        assert!(read.as_mut().now_or_never().is_none(), "stalls until cancelled");
        cancel.cancel();
        assert_eq!(read.now_or_never(), Some(Some(Err(NetworkError::Cancelled))));
        network.set_responder(|_| Err(NetworkError::Failed("down".into())));
        assert!(block_on(network.fetch(request(), &Cancellation::new())).is_err());
    }
}
