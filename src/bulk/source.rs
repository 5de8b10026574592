//! A JSONL file as blocks of whole lines: plain, gzip (several members, zero padding
//! after them allowed) or zstd (several frames, skippable ones too), told apart by their
//! first bytes. Files are streamed, never loaded whole: a reader thread decompresses and
//! cuts blocks of about `BLOCK` bytes while worker threads parse the blocks before it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

/// Bytes of decompressed text per block (a block ends at a line end, so it can be
/// longer when one line is).
pub const BLOCK: usize = 1 << 20;

/// A block this long holds a long line: the buffers it took (the line's, its arguments'
/// copies) are given back to the system when they are freed ([`release_freed_memory`]).
pub const LONG_BLOCK: usize = 16 * BLOCK;

/// Gives the memory this thread freed back to the system now, not after the allocator's
/// purge delay (10 s): after a long line, so that its transient copies do not add up
/// with what comes next (a line of 150 MB peaked at 757 MiB instead of 600 in
/// `to_arrow`, 1.1 GiB instead of 600 MiB through the CLI's JSONL writer).
pub fn release_freed_memory() {
    // SAFETY: mi_collect walks this thread's own heap and the allocator's free memory;
    // it has no precondition.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// The longest line read by default (`max_line_bytes`): a longer one is a record with
/// the error [`too_long_message`], so a stream with no newline cannot exhaust memory.
pub const MAX_LINE_BYTES: usize = 1 << 30;

const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
const ZSTD_MAGIC: &[u8] = b"\x28\xb5\x2f\xfd";

/// A zstd skippable frame starts with one of `50..5F 2A 4D 18` (every `pzstd` output
/// does); the zstd decoder skips such frames anywhere in the stream.
fn is_zstd(magic: &[u8]) -> bool {
    magic == ZSTD_MAGIC || matches!(magic, [0x50..=0x5f, 0x2a, 0x4d, 0x18])
}

/// The error of a line longer than `max` bytes (its terminator not counted).
pub fn too_long_message(max: usize) -> String {
    format!("line longer than {max} bytes")
}

/// One line of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// Its bytes, the terminator (`\n` or `\r\n`) removed.
    Text(&'a [u8]),
    /// A line longer than `max_line_bytes`: not kept.
    TooLong,
}

/// Whole lines of the file (the last one possibly without its newline).
#[derive(Debug)]
pub struct Block {
    /// The lines are `data[..len]`; the rest is room left from an earlier use.
    data: Vec<u8>,
    len: usize,
    /// Where the lines that were too long to read whole stood (each left as an empty
    /// line); lines read whole are too long when they have more than `max_line` bytes.
    too_long: Vec<usize>,
    max_line: usize,
    /// Bytes of the file (compressed, for compressed files) read so far.
    pub consumed: u64,
    /// Bytes of text (decompressed) read so far, lines too long to keep included.
    pub text_read: u64,
}

impl Block {
    pub fn text(&self) -> &[u8] {
        &self.data[..self.len]
    }

    /// The lines. Blank lines are lines too, so that counting them numbers the lines of
    /// the file.
    pub fn lines(&self) -> impl Iterator<Item = Line<'_>> + '_ {
        let data = self.text();
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= data.len() {
                return None;
            }
            let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |at| start + at);
            let line = &data[start..end];
            let at = start;
            start = end + 1;
            let stood_in = line.is_empty() && self.too_long.binary_search(&at).is_ok();
            if stood_in || line.len() > self.max_line {
                return Some(Line::TooLong);
            }
            Some(Line::Text(line.strip_suffix(b"\r").unwrap_or(line)))
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

/// The file itself: counts the bytes read from it, for progress reports, and at its end
/// says whether it shrank while it was read.
struct Counting {
    inner: File,
    count: Arc<AtomicU64>,
    /// A regular file whose size the system reports (not 0 as for files in /proc).
    sized: bool,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() && self.sized {
            // Shorter now than what was read of it: the bytes read past its new end are
            // not in it any more, and the last line read of them may be cut short.
            if self.inner.metadata()?.len() < self.count.load(Ordering::Relaxed) {
                return Err(io::Error::other(Shrank));
            }
        }
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The error of a file that shrank while it was read (the decompressors pass it on).
#[derive(Debug)]
struct Shrank;

impl std::fmt::Display for Shrank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file shrank while it was read")
    }
}

impl std::error::Error for Shrank {}

/// Gzip members one after another. Zero bytes after a member are padding (as `gzip -t`
/// and Python's gzip module accept them); anything else must be another member.
struct GzipMembers<R: BufRead> {
    member: Option<flate2::bufread::GzDecoder<R>>,
    /// The input between two members.
    between: Option<R>,
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(member) = &mut self.member {
                let n = member.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                self.between = self.member.take().map(|member| member.into_inner());
            }
            let Some(mut input) = self.between.take() else {
                return Ok(0);
            };
            loop {
                let available = input.fill_buf()?;
                if available.is_empty() {
                    return Ok(0);
                }
                let zeros = available.iter().take_while(|&&b| b == 0).count();
                if zeros == 0 {
                    break;
                }
                input.consume(zeros);
            }
            self.member = Some(flate2::bufread::GzDecoder::new(input));
        }
    }
}

/// A decompressor whose every failure is reported as corrupt or truncated data (the
/// decoders' own messages differ from Python's; one text for both backends).
struct Decompressed<R> {
    inner: R,
    what: &'static str,
}

impl<R: Read> Read for Decompressed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|err| match err.kind() {
            io::ErrorKind::Interrupted | io::ErrorKind::OutOfMemory => err,
            _ if err.get_ref().is_some_and(|inner| inner.is::<Shrank>()) => err,
            _ => io::Error::new(
                io::ErrorKind::InvalidData,
                format!("corrupt or truncated {} data", self.what),
            ),
        })
    }
}

/// The decompressed bytes of the file, and the counter of file bytes read. Opening a
/// FIFO waits for a writer: call it with the GIL released.
pub fn open(path: &Path) -> io::Result<(Box<dyn Read + Send>, Arc<AtomicU64>)> {
    let mut file = File::open(path)?;
    let mut magic = [0u8; 4];
    let mut have = 0;
    while have < magic.len() {
        match file.read(&mut magic[have..]) {
            Ok(0) => break,
            Ok(n) => have += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    let count = Arc::new(AtomicU64::new(have as u64));
    let head = io::Cursor::new(magic[..have].to_vec());
    let metadata = file.metadata()?;
    let raw = Counting {
        sized: metadata.is_file() && metadata.len() > 0,
        inner: file,
        count: count.clone(),
    };
    let whole = BufReader::with_capacity(1 << 18, head.chain(raw));
    let magic = &magic[..have];
    let reader: Box<dyn Read + Send> = if magic.starts_with(GZIP_MAGIC) {
        Box::new(Decompressed {
            inner: GzipMembers {
                member: None,
                between: Some(whole),
            },
            what: "gzip",
        })
    } else if is_zstd(magic) {
        Box::new(Decompressed {
            inner: zstd::stream::read::Decoder::with_buffer(whole)?,
            what: "zstd",
        })
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
    max_line: usize,
    text_read: u64,
    /// Dropping what is left of a line longer than `max_line`, up to its newline.
    skipping: bool,
    /// A read error, to be returned after the block of the lines read before it.
    error: Option<io::Error>,
    done: bool,
}

impl<R: Read> Blocks<R> {
    pub fn new(reader: R, count: Arc<AtomicU64>, block: usize, max_line: usize) -> Self {
        Blocks {
            reader,
            count,
            carry: Vec::new(),
            carry_len: 0,
            block: block.max(1),
            max_line,
            text_read: 0,
            skipping: false,
            error: None,
            done: false,
        }
    }

    /// The block of `data[..at]`; the rest of `data[..filled]` starts the next one.
    fn cut(&mut self, data: Vec<u8>, filled: usize, at: usize, too_long: Vec<usize>) -> Block {
        let rest = &data[at..filled];
        let mut carry = spare_buffer();
        if carry.len() < rest.len() {
            carry.resize(rest.len(), 0);
        }
        carry[..rest.len()].copy_from_slice(rest);
        self.carry_len = rest.len();
        self.carry = carry;
        self.emit(data, at, too_long)
    }

    fn emit(&self, data: Vec<u8>, len: usize, too_long: Vec<usize>) -> Block {
        if len > LONG_BLOCK {
            release_freed_memory(); // the smaller buffers the line grew through
        }
        Block {
            data,
            len,
            too_long,
            max_line: self.max_line,
            consumed: self.count.load(Ordering::Relaxed),
            text_read: self.text_read,
        }
    }
}

/// Grows `data` to `len` bytes; an allocation that fails is an error, never an abort.
fn grow(data: &mut Vec<u8>, len: usize) -> io::Result<()> {
    if data.len() < len {
        data.try_reserve(len - data.len()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("cannot allocate {len} bytes for a line"),
            )
        })?;
        data.resize(len, 0); // zeroes only memory never read into
    }
    Ok(())
}

impl<R: Read> Iterator for Blocks<R> {
    type Item = io::Result<Block>;

    fn next(&mut self) -> Option<io::Result<Block>> {
        if self.done {
            return None;
        }
        if let Some(err) = self.error.take() {
            self.done = true;
            return Some(Err(err));
        }
        let mut data = std::mem::take(&mut self.carry);
        if data.is_empty() {
            data = spare_buffer();
        }
        let mut filled = std::mem::take(&mut self.carry_len);
        let mut too_long = Vec::new();
        // The last line of data[..filled] starts at `line_start`, and data[..scanned]
        // holds no newline after it.
        let (mut line_start, mut scanned) = (0, 0);
        loop {
            let want = (self.block.saturating_sub(filled)).max(1 << 16);
            let read = grow(&mut data, filled + want)
                .and_then(|()| self.reader.read(&mut data[filled..filled + want]));
            let mut n = match read {
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    // The complete lines read before the failure come out first.
                    if let Some(at) = memchr::memrchr(b'\n', &data[scanned..filled]) {
                        line_start = scanned + at + 1;
                    }
                    if line_start == 0 {
                        self.done = true;
                        return Some(Err(err));
                    }
                    self.error = Some(err);
                    return Some(Ok(self.emit(data, line_start, too_long)));
                }
            };
            if n == 0 {
                // The end of the stream: what is left is the last line (no newline).
                self.done = true;
                return (filled > 0).then(|| Ok(self.emit(data, filled, too_long)));
            }
            self.text_read += n as u64;
            if self.skipping {
                let Some(at) = memchr::memchr(b'\n', &data[filled..filled + n]) else {
                    continue; // all of it belongs to the line being dropped
                };
                self.skipping = false;
                data.copy_within(filled + at + 1..filled + n, filled);
                n -= at + 1;
            }
            filled += n;
            if filled >= self.block || filled - line_start > self.max_line {
                if let Some(at) = memchr::memrchr(b'\n', &data[scanned..filled]) {
                    line_start = scanned + at + 1;
                }
                scanned = filled;
                if filled - line_start > self.max_line {
                    // Too long: an empty line stands in its place; the rest is dropped.
                    data[line_start] = b'\n';
                    too_long.push(line_start);
                    filled = line_start + 1;
                    (line_start, scanned) = (filled, filled);
                    self.skipping = true;
                }
                if filled >= self.block && line_start > 0 {
                    return Some(Ok(self.cut(data, filled, line_start, too_long)));
                }
            }
        }
    }
}

/// Reads the file on a thread of its own, `depth` blocks ahead of the receiver. Opening
/// errors come back now; read errors (a corrupt or cut-off compressed stream) come as
/// the last item, after the lines read before them. `generation` changes when the
/// process is a child made by fork(), which has none of the idle reading threads.
pub fn spawn_reader(
    path: &Path,
    depth: usize,
    max_line: usize,
    generation: u64,
) -> io::Result<Receiver<io::Result<Block>>> {
    let (reader, count) = open(path)?;
    let (sender, receiver) = mpsc::sync_channel(depth);
    run_on_reader(generation, move || {
        let mut blocks = Blocks::new(reader, count, BLOCK, max_line);
        loop {
            // A panic is reported as the file's error: a channel that just closed would
            // look like the end of the file.
            let block = catch_unwind(AssertUnwindSafe(|| blocks.next())).unwrap_or_else(|_| {
                Some(Err(io::Error::other("toolsift reading thread panicked")))
            });
            let Some(block) = block else { return };
            let failed = block.is_err();
            // The receiver went away (the caller stopped iterating): stop reading.
            if sender.send(block).is_err() || failed {
                return;
            }
        }
    })?;
    Ok(receiver)
}

type Job = Box<dyn FnOnce() + Send>;

/// Reading threads waiting for a file, and the generation they belong to. A thread that
/// ends leaves what it allocated in a heap of its own that the allocator keeps, and the
/// blocks it read are freed later by other threads into that heap: a thread per file
/// made thousands of abandoned `parse_file` iterators hold a gigabyte. So reading
/// threads wait for the next file (at most `IDLE_READERS` of them).
static IDLE: Mutex<(u64, Vec<mpsc::Sender<Job>>)> = Mutex::new((0, Vec::new()));
const IDLE_READERS: usize = 8;

fn idle_readers() -> std::sync::MutexGuard<'static, (u64, Vec<mpsc::Sender<Job>>)> {
    crate::sync::lock(&IDLE)
}

fn run_on_reader(generation: u64, job: impl FnOnce() + Send + 'static) -> io::Result<()> {
    let mut job: Job = Box::new(job);
    loop {
        let waiting = {
            let mut idle = idle_readers();
            if idle.0 != generation {
                // Inherited through fork(): those threads are not in this process.
                std::mem::forget(std::mem::replace(&mut *idle, (generation, Vec::new())));
            }
            idle.1.pop()
        };
        match waiting {
            Some(thread) => match thread.send(job) {
                Ok(()) => return Ok(()),
                Err(mpsc::SendError(back)) => job = back, // that thread ended: another
            },
            None => break,
        }
    }
    let (sender, receiver) = mpsc::channel::<Job>();
    sender
        .send(job)
        .map_err(|_| io::Error::other("reading thread channel closed"))?;
    std::thread::Builder::new()
        .name("toolsift-reader".to_owned())
        .spawn(move || {
            for job in receiver.iter() {
                job();
                let mut idle = idle_readers();
                if idle.0 != generation || idle.1.len() >= IDLE_READERS {
                    return;
                }
                idle.1.push(sender.clone());
            }
        })?;
    Ok(())
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
        Blocks::new(text, count, size, MAX_LINE_BYTES)
            .collect::<io::Result<Vec<_>>>()
            .unwrap()
    }

    fn owned(line: Line<'_>) -> Vec<u8> {
        match line {
            Line::Text(text) => text.to_vec(),
            Line::TooLong => b"<too long>".to_vec(),
        }
    }

    fn all_lines(text: &[u8], size: usize) -> Vec<Vec<u8>> {
        blocks(text, size)
            .iter()
            .flat_map(|b| b.lines().map(owned).collect::<Vec<_>>())
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
        for block in Blocks::new(&text[..], count, 300, MAX_LINE_BYTES) {
            let block = block.unwrap();
            got.extend(block.lines().map(owned));
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
            for block in Blocks::new(reader, count, size, MAX_LINE_BYTES) {
                let block = block.unwrap();
                assert!(
                    block.text().is_empty()
                        || block.text().ends_with(b"\n")
                        || block.text().ends_with(b"end")
                );
                got.extend(block.lines().map(owned));
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

    fn lines_with_max(text: &[u8], size: usize, max: usize) -> Vec<Vec<u8>> {
        let count = Arc::new(AtomicU64::new(0));
        let reader = Trickle { text, state: 7 };
        Blocks::new(reader, count, size, max)
            .flat_map(|b| b.unwrap().lines().map(owned).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn lines_longer_than_the_limit_become_one_marker() {
        let long = vec![b'x'; 5_000];
        let mut text = b"ab\n".to_vec();
        text.extend_from_slice(&long);
        text.extend_from_slice(b"\ncd\r\n");
        text.extend_from_slice(&long);
        text.extend_from_slice(b"\n\n12345\n123456\r\n");
        text.extend_from_slice(&long); // the last line, no newline
        let want: Vec<Vec<u8>> = [
            &b"ab"[..],
            b"<too long>",
            b"cd",
            b"<too long>",
            b"",
            b"12345",
            b"<too long>", // 6 bytes and a \r: 7 > 6
            b"<too long>",
        ]
        .iter()
        .map(|l| l.to_vec())
        .collect();
        for size in [1, 3, 100, 4096, 1 << 20] {
            assert_eq!(lines_with_max(&text, size, 6), want, "block size {size}");
        }
        let mut exact = b"123456\n".to_vec();
        exact.extend_from_slice(b"1234567");
        assert_eq!(
            lines_with_max(&exact, 2, 6),
            vec![b"123456".to_vec(), b"<too long>".to_vec()]
        );
    }

    /// Gives `text`, then fails.
    struct FailsAfter<'a>(&'a [u8]);

    impl Read for FailsAfter<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "broken"));
            }
            let n = buf.len().min(self.0.len()).min(10);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn lines_read_before_an_error_come_out_first() {
        for text in [&b"a\nbb\ncc"[..], b"a\nbb\n", b"partial", b""] {
            let count = Arc::new(AtomicU64::new(0));
            let mut got = Vec::new();
            let mut failed = false;
            for block in Blocks::new(FailsAfter(text), count, 1 << 20, MAX_LINE_BYTES) {
                match block {
                    Ok(block) => got.extend(block.lines().map(owned)),
                    Err(err) => {
                        assert_eq!(err.to_string(), "broken");
                        failed = true;
                    }
                }
            }
            assert!(failed);
            let complete = text.len() - text.iter().rev().take_while(|&&b| b != b'\n').count();
            assert_eq!(got, all_lines(&text[..complete], 1 << 20));
        }
    }

    fn decompressed(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let dir = std::env::temp_dir().join(format!("toolsift-src-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!(
            "{:x}",
            bytes.len() * 31 + bytes.first().map_or(0, |&b| b as usize)
        ));
        std::fs::write(&path, bytes)?;
        let (mut reader, _) = open(&path)?;
        let mut out = Vec::new();
        let result = reader.read_to_end(&mut out).map(|_| out);
        std::fs::remove_file(&path)?;
        result
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_file_that_shrank_while_read_ends_in_an_error() {
        let path = std::env::temp_dir().join(format!("toolsift-shrinks-{}", std::process::id()));
        std::fs::write(&path, vec![b'x'; 1 << 20]).unwrap();
        let (mut reader, _) = open(&path).unwrap();
        let mut head = vec![0; 1 << 19];
        reader.read_exact(&mut head).unwrap();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(1000).unwrap(); // behind what was read
        let err = reader.read_to_end(&mut Vec::new()).unwrap_err();
        // Read whole, the same file ends as usual.
        let (mut again, _) = open(&path).unwrap();
        let read = again.read_to_end(&mut Vec::new()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(err.to_string(), "the file shrank while it was read");
        assert_eq!(read, 1000);
    }

    #[test]
    fn gzip_members_and_zero_padding() {
        let mut bytes = gzip(b"one\n");
        bytes.extend(gzip(b"two\n"));
        bytes.extend([0u8; 1000]);
        assert_eq!(decompressed(&bytes).unwrap(), b"one\ntwo\n");
        bytes.extend(gzip(b"three\n"));
        assert_eq!(decompressed(&bytes).unwrap(), b"one\ntwo\nthree\n");
        bytes.push(b'x');
        let err = decompressed(&bytes).unwrap_err();
        assert_eq!(err.to_string(), "corrupt or truncated gzip data");
        let whole = gzip(b"one\n");
        let err = decompressed(&whole[..whole.len() - 3]).unwrap_err();
        assert_eq!(err.to_string(), "corrupt or truncated gzip data");
    }

    #[test]
    fn zstd_skippable_frames() {
        let skippable = |n: u8| {
            let mut frame = vec![0x50 + n, 0x2a, 0x4d, 0x18, 3, 0, 0, 0];
            frame.extend_from_slice(b"abc");
            frame
        };
        let mut bytes = skippable(0);
        bytes.extend(zstd::encode_all(&b"one\n"[..], 1).unwrap());
        bytes.extend(skippable(15));
        bytes.extend(zstd::encode_all(&b"two\n"[..], 1).unwrap());
        assert_eq!(decompressed(&bytes).unwrap(), b"one\ntwo\n");
        let err = decompressed(&bytes[..bytes.len() - 2]).unwrap_err();
        assert_eq!(err.to_string(), "corrupt or truncated zstd data");
    }
}
