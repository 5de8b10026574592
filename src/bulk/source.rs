//! A JSONL file as blocks of whole lines: plain, gzip (several members allowed) or zstd
//! (several frames allowed), told apart by their first bytes. Files are streamed, never
//! loaded whole: a reader thread decompresses and cuts blocks of about `BLOCK` bytes
//! while worker threads parse the blocks before it.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

/// Bytes of decompressed text per block (a block ends at a line end, so it can be
/// longer when one line is).
pub const BLOCK: usize = 1 << 20;

const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
const ZSTD_MAGIC: &[u8] = b"\x28\xb5\x2f\xfd";

/// Whole lines of the file (the last one possibly without its newline).
#[derive(Debug)]
pub struct Block {
    /// The lines are `data[..len]`; the rest is room left from an earlier use.
    data: Vec<u8>,
    len: usize,
    /// Bytes of the file (compressed, for compressed files) read so far.
    pub consumed: u64,
}

impl Block {
    pub fn text(&self) -> &[u8] {
        &self.data[..self.len]
    }

    /// The lines, the line terminator (`\n` or `\r\n`) removed. Blank lines are
    /// lines too, so that counting them numbers the lines of the file.
    pub fn lines(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let data = self.text();
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= data.len() {
                return None;
            }
            let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |at| start + at);
            let line = &data[start..end];
            start = end + 1;
            Some(line.strip_suffix(b"\r").unwrap_or(line))
        })
    }

    /// Gives the block's buffer back for the blocks of this file or a later one.
    pub fn recycle(self) {
        if let Some(mut spare) = spare_buffers() {
            if spare.len() < SPARE_MAX && self.data.len() <= 2 * BLOCK {
                spare.push(self.data);
            }
        }
    }
}

/// Buffers of used blocks. Memory the process has never touched costs a page fault and
/// a cleared page per 4 KiB, about as much as copying the bytes in from the page cache,
/// so blocks are read into used buffers, kept across files (at most `SPARE_MAX`, about
/// 18 MiB).
static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
const SPARE_MAX: usize = 16;

/// A buffer to read a block into: a used one when there is one. Its bytes are all
/// initialized (reading into it needs no zeroing first), whatever they hold.
fn spare_buffer() -> Vec<u8> {
    spare_buffers()
        .and_then(|mut spare| spare.pop())
        .unwrap_or_default()
}

/// The spare buffers, unless another thread has them this instant: then a block goes
/// without (never waiting also means a child made by fork() while a thread of its
/// parent held them cannot hang on them).
fn spare_buffers() -> Option<std::sync::MutexGuard<'static, Vec<Vec<u8>>>> {
    match SPARE.try_lock() {
        Ok(guard) => Some(guard),
        Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// Counts the bytes read from the file itself, for progress reports.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The decompressed bytes of the file, and the counter of file bytes read.
pub fn open(path: &Path) -> io::Result<(Box<dyn Read + Send>, Arc<AtomicU64>)> {
    let mut file = File::open(path)?;
    let mut magic = [0u8; 4];
    let mut have = 0;
    while have < magic.len() {
        match file.read(&mut magic[have..])? {
            0 => break,
            n => have += n,
        }
    }
    let count = Arc::new(AtomicU64::new(have as u64));
    let head = io::Cursor::new(magic[..have].to_vec());
    let raw = Counting {
        inner: file,
        count: count.clone(),
    };
    let whole = head.chain(raw);
    let magic = &magic[..have];
    let reader: Box<dyn Read + Send> = if magic.starts_with(GZIP_MAGIC) {
        Box::new(flate2::bufread::MultiGzDecoder::new(
            BufReader::with_capacity(1 << 18, whole),
        ))
    } else if magic == ZSTD_MAGIC {
        Box::new(zstd::stream::read::Decoder::with_buffer(
            BufReader::with_capacity(1 << 18, whole),
        )?)
    } else {
        Box::new(whole)
    };
    Ok((reader, count))
}

/// Cuts a byte stream into blocks of whole lines.
pub struct Blocks<R> {
    reader: R,
    count: Arc<AtomicU64>,
    /// The start of the next block: the part of a line read past the last block's end.
    carry: Vec<u8>,
    carry_len: usize,
    block: usize,
    done: bool,
}

impl<R: Read> Blocks<R> {
    pub fn new(reader: R, count: Arc<AtomicU64>, block: usize) -> Self {
        Blocks {
            reader,
            count,
            carry: Vec::new(),
            carry_len: 0,
            block: block.max(1),
            done: false,
        }
    }

    /// The block of `data[..at]`; the rest of `data[..filled]` starts the next one.
    fn cut(&mut self, data: Vec<u8>, filled: usize, at: usize) -> Block {
        let rest = &data[at..filled];
        let mut carry = spare_buffer();
        if carry.len() < rest.len() {
            carry.resize(rest.len(), 0);
        }
        carry[..rest.len()].copy_from_slice(rest);
        self.carry_len = rest.len();
        self.carry = carry;
        self.emit(data, at)
    }

    fn emit(&self, data: Vec<u8>, len: usize) -> Block {
        Block {
            data,
            len,
            consumed: self.count.load(Ordering::Relaxed),
        }
    }
}

impl<R: Read> Iterator for Blocks<R> {
    type Item = io::Result<Block>;

    fn next(&mut self) -> Option<io::Result<Block>> {
        if self.done {
            return None;
        }
        let mut data = std::mem::take(&mut self.carry);
        if data.is_empty() {
            data = spare_buffer();
        }
        let mut filled = std::mem::take(&mut self.carry_len);
        let mut searched = 0; // no newline in data[..searched] (past the block size)
        loop {
            let want = (self.block.saturating_sub(filled)).max(1 << 16);
            if data.len() < filled + want {
                data.resize(filled + want, 0); // zeroes only memory never read into
            }
            let n = match self.reader.read(&mut data[filled..filled + want]) {
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    self.done = true;
                    return Some(Err(err));
                }
            };
            if n == 0 {
                // The end of the stream: what is left is the last line (no newline).
                self.done = true;
                return (filled > 0).then(|| Ok(self.emit(data, filled)));
            }
            filled += n;
            if filled >= self.block {
                if let Some(at) = memchr::memrchr(b'\n', &data[searched..filled]) {
                    return Some(Ok(self.cut(data, filled, searched + at + 1)));
                }
                searched = filled; // one long line: read on to its end
            }
        }
    }
}

/// Reads the file on a thread of its own, `depth` blocks ahead of the receiver. Opening
/// errors come back now; read errors (a corrupt or cut-off compressed stream) come as
/// the last item.
pub fn spawn_reader(path: &Path, depth: usize) -> io::Result<Receiver<io::Result<Block>>> {
    let (reader, count) = open(path)?;
    let (sender, receiver) = mpsc::sync_channel(depth);
    std::thread::Builder::new()
        .name("toolsift-reader".to_owned())
        .spawn(move || {
            for block in Blocks::new(reader, count, BLOCK) {
                // The receiver went away (the caller stopped iterating): stop reading.
                if sender.send(block).is_err() {
                    return;
                }
            }
        })?;
    Ok(receiver)
}

/// Empty, or only JSON whitespace: a record the bulk APIs skip.
pub fn is_blank(text: &[u8]) -> bool {
    text.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(text: &[u8], size: usize) -> Vec<Block> {
        let count = Arc::new(AtomicU64::new(0));
        Blocks::new(text, count, size)
            .collect::<io::Result<Vec<_>>>()
            .unwrap()
    }

    fn all_lines(text: &[u8], size: usize) -> Vec<Vec<u8>> {
        blocks(text, size)
            .iter()
            .flat_map(|b| b.lines().map(<[u8]>::to_vec).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn lines_survive_any_block_size() {
        let text = b"{\"a\":1}\r\n\n  \nlong line here\nlast";
        let want: Vec<Vec<u8>> = vec![
            b"{\"a\":1}".to_vec(),
            b"".to_vec(),
            b"  ".to_vec(),
            b"long line here".to_vec(),
            b"last".to_vec(),
        ];
        for size in [1, 2, 3, 7, 64, 1 << 20] {
            assert_eq!(all_lines(text, size), want, "block size {size}");
        }
        assert!(all_lines(b"", 4).is_empty());
        assert_eq!(all_lines(b"x\n", 1), vec![b"x".to_vec()]);
    }

    #[test]
    fn recycled_buffers_hold_only_their_own_lines() {
        // Long lines first, so that the buffers reused later hold stale text past the
        // end of their new, shorter blocks.
        let mut text = Vec::new();
        let mut want = Vec::new();
        for n in (0..200).rev() {
            let line = format!("{n}:{}", "x".repeat(n * 7));
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
            want.push(line.into_bytes());
        }
        let count = Arc::new(AtomicU64::new(0));
        let mut got = Vec::new();
        for block in Blocks::new(&text[..], count, 300) {
            let block = block.unwrap();
            got.extend(block.lines().map(<[u8]>::to_vec));
            block.recycle();
        }
        assert_eq!(got, want);
    }

    /// Gives at most a pseudo-random number of bytes per read, as a decompressor may.
    struct Trickle<'a> {
        text: &'a [u8],
        state: u64,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            let n = (self.state % 700) as usize;
            let n = n.min(buf.len()).min(self.text.len());
            buf[..n].copy_from_slice(&self.text[..n]);
            self.text = &self.text[n..];
            if n == 0 && !self.text.is_empty() && !buf.is_empty() {
                return Err(io::ErrorKind::Interrupted.into()); // then read again
            }
            Ok(n)
        }
    }

    #[test]
    fn short_reads_and_long_lines() {
        let mut text = Vec::new();
        let mut want = Vec::new();
        for n in 0..400usize {
            // Lines from empty to several blocks long, some with `\r\n`.
            let line = vec![b'a' + (n % 26) as u8; (n * n * 31) % 2_000];
            text.extend_from_slice(&line);
            text.extend_from_slice(if n % 3 == 0 { b"\r\n" } else { b"\n" });
            want.push(line);
        }
        text.extend_from_slice(b"no newline at the end");
        want.push(b"no newline at the end".to_vec());
        for (size, seed) in [(1, 1), (64, 2), (500, 3), (4096, 4)] {
            let count = Arc::new(AtomicU64::new(0));
            let reader = Trickle {
                text: &text,
                state: seed,
            };
            let mut got = Vec::new();
            for block in Blocks::new(reader, count, size) {
                let block = block.unwrap();
                assert!(
                    block.text().is_empty()
                        || block.text().ends_with(b"\n")
                        || block.text().ends_with(b"end")
                );
                got.extend(block.lines().map(<[u8]>::to_vec));
                block.recycle();
            }
            assert_eq!(got, want, "block size {size}");
        }
    }

    #[test]
    fn blank() {
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r\n"));
        assert!(!is_blank(b" {}"));
    }
}
