//! `parser.stream()`'s core: events fed one at a time, each feed giving the calls it
//! completed, the calls so far readable at any point ([`Stream::partial`]), then
//! [`Stream::finish`]. The incremental driver over [`crate::events::Assembler`], above
//! the route; the binding (`src/python/stream.rs`) turns its calls into Python objects.
//! The twin of `python/toolsift/_pure/stream.py` (its docstring states the rules).

use crate::accumulator::StreamCall;
use crate::events::{Assembler, EventError, Reader, TextError};
use crate::node::Node;

/// `parser.stream()`'s state: feed events, read the calls so far, finish.
#[derive(Debug)]
pub struct Stream {
    assembler: Assembler,
}

impl Stream {
    pub fn new(reader: Reader) -> Self {
        Stream {
            assembler: Assembler::new(reader),
        }
    }

    /// `str` / `bytes`: JSON text (one event, or any piece of any number of them), or a
    /// chunk of SSE text. The calls it completed, in order.
    pub fn feed_text(&mut self, data: &[u8]) -> Result<Vec<StreamCall<'_>>, TextError> {
        self.feed_parts(|parts| parts.feed_text(data))
    }

    /// An event object (a dict, an SDK object, or a decoded JSON object). The calls it
    /// completed, in order.
    pub fn feed_node<N: Node>(
        &mut self,
        event: &N,
    ) -> Result<Vec<StreamCall<'_>>, EventError<N::Error>> {
        self.feed_parts(|parts| parts.feed_node(event))
    }

    /// One feed given in parts (a list of events, each fed by `read`): the calls they
    /// completed, in order, as they are after the last part.
    pub fn feed_parts<E>(
        &mut self,
        read: impl FnOnce(&mut Assembler) -> Result<(), E>,
    ) -> Result<Vec<StreamCall<'_>>, E> {
        self.assembler.begin();
        read(&mut self.assembler)?;
        Ok(self.assembler.completed())
    }

    /// The end of the stream: an SSE event left without its empty line is read (where
    /// it is not JSON, the stream was cut inside it).
    pub fn finish(&mut self) {
        self.assembler.finish();
    }

    /// Whether [`Self::finish`] was called: no event may follow.
    pub fn is_finished(&self) -> bool {
        self.assembler.is_finished()
    }

    /// Where the stream gave no call, why: the provider's error event, or the pieces of
    /// calls it held ([`crate::events::Assembler::error`]).
    pub fn error(&self, no_calls: bool) -> Option<&str> {
        self.assembler.error(no_calls)
    }

    /// Every call, in the provider's order.
    pub fn calls(&self) -> Vec<StreamCall<'_>> {
        self.assembler.calls()
    }

    /// Every call started so far, arguments still arriving decoded as far as they are
    /// complete (each read from where the last `partial` read it).
    pub fn partial(&mut self) -> Vec<StreamCall<'_>> {
        self.assembler.partial()
    }
}
