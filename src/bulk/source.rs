//! A JSONL file as blocks of whole lines: plain, gzip (several members allowed) or zstd
//! (several frames allowed), told apart by their first bytes. Files are streamed, never
//! loaded whole: a reader thread decompresses and cuts blocks of about `BLOCK` bytes
//! while worker threads parse the blocks before it.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Arc;

/// Bytes of decompressed text per block (a block ends at a line end, so it can be
/// longer when one line is).
pub const BLOCK: usize = 1 << 20;

const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
const ZSTD_MAGIC: &[u8] = b"\x28\xb5\x2f\xfd";

/// Whole lines of the file (the last one possibly without its newline).
#[derive(Debug)]
pub struct Block {
    pub data: Vec<u8>,
    /// The 0-based number of the block's first line in the file.
    pub first_line: u64,
    /// Bytes of the file (compressed, for compressed files) read so far.
    pub consumed: u64,
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
    carry: Vec<u8>,
    next_line: u64,
    block: usize,
    done: bool,
    /// Buffers of blocks that were used up, to read the next blocks into.
    spare: Option<Receiver<Vec<u8>>>,
}

impl<R: Read> Blocks<R> {
    pub fn new(reader: R, count: Arc<AtomicU64>, block: usize) -> Self {
        Blocks {
            reader,
            count,
            carry: Vec::new(),
            next_line: 0,
            block: block.max(1),
            done: false,
            spare: None,
        }
    }

    /// Read into the buffers that come back on `spare` (fresh ones when none has).
    pub fn recycling(mut self, spare: Receiver<Vec<u8>>) -> Self {
        self.spare = Some(spare);
        self
    }

    fn cut(&mut self, mut data: Vec<u8>, at: usize) -> Block {
        let mut carry = self.buffer();
        carry.extend_from_slice(&data[at..]);
        self.carry = carry;
        data.truncate(at);
        self.emit(data)
    }

    /// An empty buffer: a used one when there is one.
    fn buffer(&mut self) -> Vec<u8> {
        match self.spare.as_ref().and_then(|spare| spare.try_recv().ok()) {
            Some(mut used) => {
                used.clear();
                used
            }
            None => Vec::new(),
        }
    }

    fn emit(&mut self, data: Vec<u8>) -> Block {
        let first_line = self.next_line;
        self.next_line += memchr::memchr_iter(b'\n', &data).count() as u64;
        Block {
            data,
            first_line,
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
        data.reserve(self.block + self.block / 8);
        let mut searched = 0; // no newline in data[..searched] (past the block size)
        loop {
            let filled = data.len();
            let want = (self.block.saturating_sub(filled)).max(1 << 16);
            // Read into the spare capacity (a recycled buffer has enough of it).
            let n = match (&mut self.reader).take(want as u64).read_to_end(&mut data) {
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
                return (!data.is_empty()).then(|| Ok(self.emit(data)));
            }
            if data.len() >= self.block {
                if let Some(at) = memchr::memrchr(b'\n', &data[searched..]) {
                    return Some(Ok(self.cut(data, searched + at + 1)));
                }
                searched = data.len(); // one long line: read on to its end
            }
        }
    }
}

/// Reads the file on a thread of its own, `depth` blocks ahead of the receiver. Opening
/// errors come back now; read errors (a corrupt or cut-off compressed stream) come as
/// the last item.
/// Where the buffers of used blocks go back to the reader.
pub type Recycle = SyncSender<Vec<u8>>;

/// Buffers of used blocks go back to the reader on the `SyncSender` (sending may fail:
/// then the buffer is simply dropped).
pub fn spawn_reader(
    path: &Path,
    depth: usize,
) -> io::Result<(Receiver<io::Result<Block>>, Recycle)> {
    let (reader, count) = open(path)?;
    let (sender, receiver) = mpsc::sync_channel(depth);
    let (recycle, spare) = mpsc::sync_channel(depth + 8);
    std::thread::Builder::new()
        .name("toolsift-reader".to_owned())
        .spawn(move || {
            for block in Blocks::new(reader, count, BLOCK).recycling(spare) {
                // The receiver went away (the caller stopped iterating): stop reading.
                if sender.send(block).is_err() {
                    return;
                }
            }
        })?;
    Ok((receiver, recycle))
}

/// The lines of a block, numbered: the line terminator (`\n` or `\r\n`) removed.
pub fn lines(block: &Block) -> impl Iterator<Item = (u64, &[u8])> + '_ {
    let data = &block.data[..];
    let mut start = 0;
    let mut number = block.first_line;
    std::iter::from_fn(move || {
        if start >= data.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |at| start + at);
        let mut line = &data[start..end];
        start = end + 1;
        if let Some(stripped) = line.strip_suffix(b"\r") {
            line = stripped;
        }
        number += 1;
        Some((number - 1, line))
    })
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

    fn all_lines(text: &[u8], size: usize) -> Vec<(u64, Vec<u8>)> {
        blocks(text, size)
            .iter()
            .flat_map(|b| lines(b).map(|(n, l)| (n, l.to_vec())).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn lines_survive_any_block_size() {
        let text = b"{\"a\":1}\r\n\n  \nlong line here\nlast";
        let want: Vec<(u64, Vec<u8>)> = vec![
            (0, b"{\"a\":1}".to_vec()),
            (1, b"".to_vec()),
            (2, b"  ".to_vec()),
            (3, b"long line here".to_vec()),
            (4, b"last".to_vec()),
        ];
        for size in [1, 2, 3, 7, 64, 1 << 20] {
            assert_eq!(all_lines(text, size), want, "block size {size}");
        }
        assert!(all_lines(b"", 4).is_empty());
        assert_eq!(all_lines(b"x\n", 1), vec![(0, b"x".to_vec())]);
    }

    #[test]
    fn blank() {
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r\n"));
        assert!(!is_blank(b" {}"));
    }
}
