//! The blocks of a file, for the bulk APIs: read ahead on a reader thread of its own or,
//! for one thread, read and decompressed by the calling thread itself when it needs the
//! next one (`threads=1` keeps one core busy, which is what an engine's task asks for).
//! A read error is kept, to be raised after the blocks read before it are out. The
//! caller releases what it holds (the GIL) around the calls that may wait.

use super::source::{self, Block};
use crate::sync::lock;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc::Receiver;
use std::sync::Mutex;

pub struct BlockSource {
    blocks: Blocks,
    error: Option<io::Error>,
    done: bool,
}

/// (In mutexes only for the `Sync` a Python class needs: one thread reads.)
enum Blocks {
    Ahead(Mutex<Receiver<io::Result<Block>>>),
    Inline(Mutex<source::Blocks<Box<dyn io::Read + Send>>>),
}

impl BlockSource {
    /// Opens the file (this may wait: opening a FIFO waits for its writer). `forks` is
    /// `pipeline::forks()`, for the reader thread.
    pub fn open(
        path: &Path,
        max_line: usize,
        threads: usize,
        read_ahead: usize,
        forks: u64,
    ) -> io::Result<Self> {
        let blocks = if threads <= 1 {
            let (reader, count) = source::open(path)?;
            let blocks = source::Blocks::new(reader, count, source::BLOCK, max_line);
            Blocks::Inline(Mutex::new(blocks))
        } else {
            Blocks::Ahead(Mutex::new(source::spawn_reader(
                path, read_ahead, max_line, forks,
            )?))
        };
        Ok(BlockSource {
            blocks,
            error: None,
            done: false,
        })
    }

    /// The next block if the reader thread has one ready (None also at the end, and
    /// always when reading inline: then `next` tells).
    pub fn try_next(&mut self) -> Option<Block> {
        let Blocks::Ahead(receiver) = &self.blocks else {
            return None;
        };
        if self.done {
            return None;
        }
        let block = lock(receiver).try_recv().ok()?;
        self.took(Some(block))
    }

    /// The error that ended the reading, if one did (taken).
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    fn took(&mut self, block: Option<io::Result<Block>>) -> Option<Block> {
        match block {
            Some(Ok(block)) => Some(block),
            Some(Err(err)) => {
                self.error = Some(err);
                self.done = true;
                None
            }
            None => {
                self.done = true;
                None
            }
        }
    }
}

/// The blocks, each waited for or read (this may wait).
impl Iterator for BlockSource {
    type Item = Block;

    fn next(&mut self) -> Option<Block> {
        if self.done {
            return None;
        }
        let block = match &self.blocks {
            Blocks::Ahead(receiver) => lock(receiver).recv().ok(),
            // As on a reader thread: a panic is the file's error, not the end.
            Blocks::Inline(blocks) => catch_unwind(AssertUnwindSafe(|| lock(blocks).next()))
                .unwrap_or_else(|_| Some(Err(io::Error::other("toolsift reading panicked")))),
        };
        self.took(block)
    }
}
