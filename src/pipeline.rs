//! Ordered, bounded, cancellable parallel work: the one scheduler of the bulk APIs. No
//! PyO3 (the binding passes in what is Python's: see [`Host`]); `cargo test`ed below.
//!
//! The input is cut into chunks, worked on by a thread pool, and the results come back
//! to the calling thread in input order (building Python objects needs the GIL, which
//! only the calling thread holds). Two shapes: [`run`] takes chunks from an iterator and
//! hands every result to a consumer (`parse_many`, `to_arrow`, `arrow_batches`);
//! [`Ordered`] gives one result each time it is asked (the iterator of `parse_file`).
//! Both
//!
//! * take at most `lookahead` chunks ahead of the consumer, so memory stays bounded;
//! * let the calling thread work too, when it gets to a chunk no worker has started
//!   (rather than wait idle), where the plan says so;
//! * catch a panic of the work and report it as [`Broken::Panicked`], never unwinding
//!   into the caller (a Python extension must not unwind across FFI);
//! * stop early: an error of the consumer cancels the chunks no worker has started, and
//!   an [`Ordered`] dropped takes back the chunks no worker has started;
//! * ask the [`Host`] to release what the calling thread holds while it works or waits
//!   (the GIL), and whether to stop (Ctrl-C) between chunks.

use crate::sync::lock;
use rayon::ThreadPool;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};

/// In-memory records per chunk of work: large enough to amortize hand-offs, small enough
/// that Ctrl-C is noticed within milliseconds and memory stays bounded.
pub const CHUNK: usize = 512;

/// The most threads one run starts (more would only wait).
pub const MAX_THREADS: usize = 256;

/// What the pipeline asks of the thread that runs it (the binding's is Python's).
pub trait Host {
    /// The caller's error: the consumer's, and the pipeline's own ([`Broken`]).
    type Error: From<Broken>;
    /// Runs `f` with what the calling thread holds released (PyO3: the GIL detached).
    fn detach<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T;
    /// Between chunks: an error stops the run (PyO3: a pending KeyboardInterrupt).
    fn check(&self) -> Result<(), Self::Error>;
}

/// A host that holds nothing and never stops (plain Rust callers, the tests).
pub struct Plain;

impl Host for Plain {
    type Error = Broken;
    fn detach<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        f()
    }
    fn check(&self) -> Result<(), Broken> {
        Ok(())
    }
}

/// What went wrong in the pipeline itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
    /// The work on a chunk panicked.
    Panicked,
    /// The worker threads went away with work unfinished.
    Stopped,
    /// The pool could not be started.
    NoThreads(String),
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Broken::Panicked => f.write_str("toolsift worker thread panicked"),
            Broken::Stopped => f.write_str("toolsift worker threads stopped"),
            Broken::NoThreads(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Broken {}

/// How a [`run`] works.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Threads in all, the calling one included when it works (1: the calling thread
    /// does everything, no pool).
    pub threads: usize,
    /// Whether the calling thread works on chunks too. Better when consuming is costly
    /// (Python objects); with false it only hands chunks out and consumes the results
    /// (better when consuming is cheap: Arrow batches).
    pub caller_works: bool,
    /// Chunks taken ahead of the consumer, per thread (and one more).
    pub per_thread: usize,
}

impl Plan {
    fn lookahead(&self) -> usize {
        self.per_thread * self.threads + 1
    }
}

/// The threads to use for `requested` (None: all cores), at most [`MAX_THREADS`].
pub fn threads(requested: Option<usize>) -> usize {
    requested
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .min(MAX_THREADS)
}

/// fork() calls between this process and the one that loaded the library, counted by
/// [`forked`] (the binding registers it with `os.register_at_fork`). A child made by
/// fork() (multiprocessing's workers on Linux) has none of its parent's threads.
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Called in a child made by fork(), before anything else runs there.
pub fn forked() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// See [`FORKS`]: what was set up with threads before a change of it is useless now.
pub fn forks() -> u64 {
    FORKS.load(Ordering::Relaxed)
}

/// Pools kept at most, and their threads at most (the pool in use is always kept): each
/// distinct `threads=` value needs a pool of its own, and without a bound a program
/// trying many values would keep every one of them, idle.
const POOLS_KEPT: usize = 4;
const THREADS_KEPT: usize = 64;

/// One pool per thread count, made once: starting threads per call would cost more
/// than a small batch. The most recently used are kept (`POOLS_KEPT`, `THREADS_KEPT`);
/// one dropped ends its threads when the last run using it is done.
pub fn pool(threads: usize) -> Result<Arc<ThreadPool>, Broken> {
    /// The pools, most recently used last, and `forks()` when they were started.
    type Pools = (u64, Vec<(usize, Arc<ThreadPool>)>);
    static POOLS: Mutex<Pools> = Mutex::new((0, Vec::new()));
    let mut pools = lock(&POOLS);
    if pools.0 != forks() {
        // A child made by fork() inherits the pools but not their threads: work sent to
        // them would wait forever. Start new ones; the old ones are forgotten, since
        // dropping them would signal threads that do not exist here.
        std::mem::forget(std::mem::replace(&mut *pools, (forks(), Vec::new())));
    }
    let used = match pools.1.iter().position(|(n, _)| *n == threads) {
        Some(at) => pools.1.remove(at).1,
        None => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("toolsift-{i}"))
                .build()
                .map_err(|err| {
                    Broken::NoThreads(format!("cannot start {threads} threads: {err}"))
                })?;
            Arc::new(pool)
        }
    };
    pools.1.push((threads, used.clone()));
    while pools.1.len() > 1
        && (pools.1.len() > POOLS_KEPT || pools.1.iter().map(|p| p.0).sum::<usize>() > THREADS_KEPT)
    {
        pools.1.remove(0);
    }
    Ok(used)
}

/// A chunk's result, or why there is none.
type Done<O> = Result<O, Broken>;

/// A chunk handed out waits in its slot; whoever takes it first (a worker, or the
/// calling thread when it gets there first) works on it.
type Slot<C> = Arc<Mutex<Option<C>>>;

/// Work on `chunk`, a panic caught.
fn guarded<C, O>(work: impl FnOnce(C) -> O, chunk: C) -> Done<O> {
    catch_unwind(AssertUnwindSafe(|| work(chunk))).map_err(|_| Broken::Panicked)
}

/// The chunks handed out, in order, and the results that came back before their turn.
struct Queue<C, O> {
    /// The chunks handed out and not yet given back, the first one first.
    handed_out: VecDeque<(usize, Slot<C>)>,
    /// Chunks handed out so far (the next one's number).
    offered: usize,
    early: HashMap<usize, Done<O>>,
    sender: Sender<(usize, Done<O>)>,
    /// (In a mutex only for the `Sync` a Python class needs: one thread receives.)
    receiver: Mutex<Receiver<(usize, Done<O>)>>,
}

/// A chunk handed out, for a worker.
struct Task<C, O> {
    number: usize,
    slot: Slot<C>,
    sender: Sender<(usize, Done<O>)>,
}

impl<C, O> Task<C, O> {
    /// Works on the chunk, unless the calling thread took it first.
    fn run(self, work: impl FnOnce(C) -> Done<O>) {
        let chunk = lock(&self.slot).take(); // not held while working
        if let Some(chunk) = chunk {
            // The receiver is gone only when no one waits for the result any more.
            let _ = self.sender.send((self.number, work(chunk)));
        }
    }
}

impl<C: Send, O: Send> Queue<C, O> {
    fn new() -> Self {
        let (sender, receiver) = mpsc::channel();
        Queue {
            handed_out: VecDeque::new(),
            offered: 0,
            early: HashMap::new(),
            sender,
            receiver: Mutex::new(receiver),
        }
    }

    fn len(&self) -> usize {
        self.handed_out.len()
    }

    fn is_empty(&self) -> bool {
        self.handed_out.is_empty()
    }

    /// Hands `chunk` out; the task is for a worker (dropped where there is none).
    fn offer(&mut self, chunk: C) -> Task<C, O> {
        let number = self.offered;
        self.offered += 1;
        let slot = Arc::new(Mutex::new(Some(chunk)));
        self.handed_out.push_back((number, slot.clone()));
        Task {
            number,
            slot,
            sender: self.sender.clone(),
        }
    }

    /// The result of the first chunk handed out (None: none is). With `own`, the
    /// calling thread works on that chunk itself when no worker has started it; while a
    /// worker has it, on a later one no worker has started (rather than wait idle).
    fn next<H: Host>(
        &mut self,
        host: &H,
        own: Option<&(dyn Fn(C) -> Done<O> + Sync)>,
    ) -> Option<Done<O>> {
        let (number, slot) = self.handed_out.pop_front()?;
        if let Some(done) = self.early.remove(&number) {
            return Some(done);
        }
        let (early, receiver, handed_out) = (&mut self.early, &self.receiver, &self.handed_out);
        Some(host.detach(move || {
            let receiver = lock(receiver);
            loop {
                if let Some(done) = early.remove(&number) {
                    return done;
                }
                if let Some(own) = own {
                    if let Some(chunk) = lock(&slot).take() {
                        return own(chunk);
                    }
                    match receiver.try_recv() {
                        Ok((k, done)) => {
                            early.insert(k, done);
                            continue;
                        }
                        Err(TryRecvError::Disconnected) => return Err(Broken::Stopped),
                        Err(TryRecvError::Empty) => {}
                    }
                    let later = handed_out
                        .iter()
                        .find_map(|(k, slot)| lock(slot).take().map(|chunk| (*k, chunk)));
                    if let Some((k, chunk)) = later {
                        early.insert(k, own(chunk));
                        continue;
                    }
                }
                match receiver.recv() {
                    Ok((k, done)) => {
                        early.insert(k, done);
                    }
                    Err(_) => return Err(Broken::Stopped),
                }
            }
        }))
    }

    /// The chunks no worker has started, taken back (their tasks will find nothing).
    fn take_back(&mut self) -> Vec<C> {
        self.handed_out
            .drain(..)
            .filter_map(|(_, slot)| lock(&slot).take())
            .collect()
    }
}

/// Works on `chunks` with `plan.threads` threads and hands each result to `consume` in
/// order, with its number. `work(chunk, on_caller)`: `on_caller` is true when the
/// calling thread does it (the one that consumes). `chunks` is read on the calling
/// thread (an iterator that blocks detaches itself), at most `per_thread * threads + 1`
/// ahead of `consume`. The host is asked to detach while the calling thread works or
/// waits, and checked after each chunk consumed. The first error (the consumer's, the
/// host's, or a panic of the work) stops the run: chunks no worker has started are
/// skipped, and it returns once the others are done.
pub fn run<H: Host, C: Send, O: Send>(
    host: &H,
    plan: Plan,
    chunks: impl IntoIterator<Item = C>,
    work: impl Fn(C, bool) -> O + Sync,
    mut consume: impl FnMut(usize, O) -> Result<(), H::Error>,
) -> Result<(), H::Error> {
    let mut chunks = chunks.into_iter().fuse();
    if plan.threads <= 1 {
        for (k, chunk) in chunks.enumerate() {
            let done = host.detach(|| guarded(|chunk| work(chunk, true), chunk))?;
            consume(k, done)?;
            host.check()?;
        }
        return Ok(());
    }
    let pool = pool(if plan.caller_works {
        plan.threads - 1
    } else {
        plan.threads
    })?;
    let lookahead = plan.lookahead();
    let cancelled = AtomicBool::new(false);
    let (work, cancelled) = (&work, &cancelled);
    let own = |chunk: C| guarded(|chunk| work(chunk, true), chunk);
    let own: Option<&(dyn Fn(C) -> Done<O> + Sync)> = plan.caller_works.then_some(&own);
    pool.in_place_scope_fifo(|scope| {
        let mut queue = Queue::new();
        let mut offer = |queue: &mut Queue<C, O>| -> bool {
            let Some(chunk) = chunks.next() else {
                return false;
            };
            let task = queue.offer(chunk);
            scope.spawn_fifo(move |_| {
                if !cancelled.load(Ordering::Relaxed) {
                    task.run(|chunk| guarded(|chunk| work(chunk, false), chunk));
                }
            });
            true
        };
        while queue.len() < lookahead && offer(&mut queue) {}
        let mut k = 0;
        while let Some(done) = queue.next(host, own) {
            offer(&mut queue); // workers go on while the caller consumes
            let consumed = done
                .map_err(H::Error::from)
                .and_then(|out| consume(k, out))
                .and_then(|()| host.check());
            if let Err(err) = consumed {
                cancelled.store(true, Ordering::Relaxed);
                return Err(err);
            }
            k += 1;
        }
        Ok(())
    })
}

/// The work of an [`Ordered`]: `(chunk, on_caller)` as for [`run`].
pub type Work<C, O> = Arc<dyn Fn(C, bool) -> O + Send + Sync>;

/// The ordered results of chunks, one each time [`Ordered::next`] is called: for an
/// iterator that builds each result's objects only when asked (memory stays flat). The
/// calling thread works too. Dropped before its end, it takes back the chunks no worker
/// has started, so that the work queued for them finds nothing to do.
pub struct Ordered<C, O> {
    work: Work<C, O>,
    /// The workers (None: the calling thread does all the work).
    pool: Option<Arc<ThreadPool>>,
    /// Chunks handed out at most.
    lookahead: usize,
    queue: Queue<C, O>,
    /// Whether a result was given out (the host is checked between chunks).
    started: bool,
}

impl<C: Send + 'static, O: Send + 'static> Ordered<C, O> {
    /// `threads` in all, the calling one included; `per_thread` chunks handed out per
    /// thread at most.
    pub fn new(threads: usize, per_thread: usize, work: Work<C, O>) -> Result<Self, Broken> {
        let threads = threads.max(1);
        Ok(Ordered {
            work,
            pool: if threads > 1 {
                Some(pool(threads - 1)?)
            } else {
                None
            },
            lookahead: per_thread.max(1) * threads,
            queue: Queue::new(),
            started: false,
        })
    }

    /// The next result; None when `source` has no more chunks. Chunks are handed out up
    /// to the lookahead first: `source(wait)` gives the next one, and is asked to wait
    /// for it only when none is handed out (else None: none ready now).
    pub fn next<H: Host>(
        &mut self,
        host: &H,
        mut source: impl FnMut(bool) -> Option<C>,
    ) -> Result<Option<O>, H::Error> {
        if self.started {
            host.check()?;
        }
        while self.queue.len() < self.lookahead {
            let Some(chunk) = source(self.queue.is_empty()) else {
                break;
            };
            let task = self.queue.offer(chunk);
            if let Some(pool) = &self.pool {
                let work = self.work.clone();
                pool.spawn_fifo(move || {
                    task.run(|chunk| guarded(|chunk| work(chunk, false), chunk));
                });
            }
        }
        let work = &self.work;
        let own = |chunk: C| guarded(|chunk| work(chunk, true), chunk);
        let Some(done) = self.queue.next(host, Some(&own)) else {
            return Ok(None);
        };
        self.started = true;
        Ok(Some(done?))
    }

    /// The chunks no worker has started, taken back (when stopping early).
    pub fn take_back(&mut self) -> Vec<C> {
        self.queue.take_back()
    }
}

impl<C, O> Drop for Ordered<C, O> {
    fn drop(&mut self) {
        for (_, slot) in self.queue.handed_out.drain(..) {
            drop(lock(&slot).take());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// A host that counts what it is asked, and stops after `stop_after` checks.
    #[derive(Default)]
    struct Counting {
        detached: AtomicUsize,
        checks: Cell<usize>,
        stop_after: Option<usize>,
    }

    #[derive(Debug, PartialEq)]
    enum Error {
        Broken(Broken),
        Stop,
        Consumer(usize),
    }

    impl From<Broken> for Error {
        fn from(broken: Broken) -> Self {
            Error::Broken(broken)
        }
    }

    impl Host for Counting {
        type Error = Error;
        fn detach<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
            self.detached.fetch_add(1, Ordering::Relaxed);
            f()
        }
        fn check(&self) -> Result<(), Error> {
            self.checks.set(self.checks.get() + 1);
            match self.stop_after {
                Some(n) if self.checks.get() > n => Err(Error::Stop),
                _ => Ok(()),
            }
        }
    }

    fn plans() -> Vec<Plan> {
        let mut plans = Vec::new();
        for threads in [1, 2, 3, 8] {
            for caller_works in [true, false] {
                for per_thread in [1, 2] {
                    plans.push(Plan {
                        threads,
                        caller_works,
                        per_thread,
                    });
                }
            }
        }
        plans
    }

    /// Work that takes longer on some chunks, so that they finish out of order.
    fn uneven(chunk: usize) -> usize {
        if chunk % 3 == 0 {
            std::thread::sleep(Duration::from_micros(300));
        }
        chunk * 10
    }

    #[test]
    fn results_come_in_order() {
        for plan in plans() {
            let mut seen = Vec::new();
            run(
                &Plain,
                plan,
                0..100,
                |c, _| uneven(c),
                |k, out| {
                    seen.push((k, out));
                    Ok(())
                },
            )
            .unwrap();
            let expected: Vec<_> = (0..100).map(|k| (k, k * 10)).collect();
            assert_eq!(seen, expected, "{plan:?}");
        }
    }

    #[test]
    fn no_chunks_no_calls() {
        for plan in plans() {
            let host = Counting::default();
            run(
                &host,
                plan,
                std::iter::empty::<usize>(),
                |c, _| c,
                |_, _| panic!("consumed nothing"),
            )
            .unwrap();
            assert_eq!(host.checks.get(), 0);
        }
    }

    #[test]
    fn lookahead_is_bounded() {
        for plan in plans() {
            let taken = AtomicUsize::new(0);
            let chunks = (0..60).inspect(|_| {
                taken.fetch_add(1, Ordering::Relaxed);
            });
            let mut most = 0;
            run(
                &Plain,
                plan,
                chunks,
                |c, _| uneven(c),
                |k, _| {
                    // Taken, and not yet consumed (this one included).
                    let ahead = taken.load(Ordering::Relaxed) - k;
                    most = most.max(ahead);
                    Ok(())
                },
            )
            .unwrap();
            let bound = if plan.threads <= 1 {
                1
            } else {
                plan.lookahead() + 1
            };
            assert!(most <= bound, "{plan:?}: {most} ahead, bound {bound}");
        }
    }

    #[test]
    fn the_caller_works_when_asked_to() {
        for plan in plans() {
            let on_caller = AtomicUsize::new(0);
            let caller = std::thread::current().id();
            run(
                &Plain,
                plan,
                0..200,
                |c, mine| {
                    if mine {
                        on_caller.fetch_add(1, Ordering::Relaxed);
                        assert_eq!(std::thread::current().id(), caller);
                    } else {
                        assert_ne!(std::thread::current().id(), caller);
                    }
                    // Slow enough that the caller catches up with the workers.
                    std::thread::sleep(Duration::from_micros(200));
                    c
                },
                |_, _| Ok(()),
            )
            .unwrap();
            let mine = on_caller.load(Ordering::Relaxed);
            if plan.threads <= 1 {
                assert_eq!(mine, 200, "{plan:?}");
            } else if plan.caller_works {
                assert!(mine > 0, "{plan:?}");
            } else {
                assert_eq!(mine, 0, "{plan:?}");
            }
        }
    }

    #[test]
    fn a_consumer_error_cancels_the_rest() {
        for plan in plans() {
            let worked = AtomicUsize::new(0);
            let mut consumed = 0;
            let result = run(
                &Counting::default(),
                plan,
                0..10_000,
                |c, _| {
                    worked.fetch_add(1, Ordering::Relaxed);
                    c
                },
                |k, _| {
                    consumed += 1;
                    if k == 5 {
                        return Err(Error::Consumer(k));
                    }
                    Ok(())
                },
            );
            assert_eq!(result, Err(Error::Consumer(5)), "{plan:?}");
            assert_eq!(consumed, 6);
            // Only the chunks taken ahead were worked on, not the 10,000.
            let bound = 6 + plan.lookahead() + 1;
            assert!(worked.load(Ordering::Relaxed) <= bound, "{plan:?}");
        }
    }

    #[test]
    fn the_host_is_checked_between_chunks_and_detached() {
        for plan in plans() {
            let host = Counting {
                stop_after: Some(3),
                ..Counting::default()
            };
            let mut consumed = 0;
            let result = run(
                &host,
                plan,
                0..100,
                |c, _| c,
                |_, _| {
                    consumed += 1;
                    Ok(())
                },
            );
            assert_eq!(result, Err(Error::Stop), "{plan:?}");
            assert_eq!((consumed, host.checks.get()), (4, 4), "{plan:?}");
            assert!(host.detached.load(Ordering::Relaxed) > 0, "{plan:?}");
        }
    }

    #[test]
    fn a_panicking_chunk_is_an_error() {
        for plan in plans() {
            let mut consumed = Vec::new();
            let result = run(
                &Counting::default(),
                plan,
                0..50,
                |c, _| {
                    assert!(c != 7, "chunk 7 breaks");
                    c
                },
                |k, _| {
                    consumed.push(k);
                    Ok(())
                },
            );
            assert_eq!(result, Err(Error::Broken(Broken::Panicked)), "{plan:?}");
            // Every chunk before it was consumed, in order.
            assert_eq!(consumed, (0..7).collect::<Vec<_>>(), "{plan:?}");
        }
    }

    fn ordered_all(threads: usize, per_thread: usize, n: usize) -> (Vec<usize>, usize) {
        let work: Work<usize, usize> = Arc::new(|c, _| uneven(c));
        let mut ordered = Ordered::new(threads, per_thread, work).unwrap();
        let (mut next, mut most, mut out) = (0, 0, Vec::new());
        let mut given = 0;
        while let Some(result) = ordered
            .next(&Plain, |_| {
                (next < n).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .unwrap()
        {
            given += 1;
            most = most.max(next - given + 1);
            out.push(result);
        }
        (out, most)
    }

    #[test]
    fn ordered_gives_results_in_order_within_its_lookahead() {
        for threads in [1, 2, 4] {
            for per_thread in [1, 2] {
                let (out, most) = ordered_all(threads, per_thread, 50);
                assert_eq!(out, (0..50).map(|c| c * 10).collect::<Vec<_>>());
                assert!(
                    most <= per_thread * threads,
                    "{threads} {per_thread}: {most}"
                );
            }
        }
    }

    #[test]
    fn ordered_waits_for_its_source_only_when_nothing_is_handed_out() {
        let work: Work<usize, usize> = Arc::new(|c, _| c);
        let mut ordered = Ordered::new(2, 2, work).unwrap();
        let mut asked = Vec::new();
        let mut source = (0..3).collect::<VecDeque<_>>();
        let mut got = Vec::new();
        while let Some(c) = ordered
            .next(&Plain, |wait| {
                asked.push(wait);
                source.pop_front()
            })
            .unwrap()
        {
            got.push(c);
        }
        assert_eq!(got, [0, 1, 2]);
        assert_eq!(asked.first(), Some(&true));
        assert_eq!(asked.last(), Some(&true)); // the end, with nothing handed out
        assert!(
            asked[1..asked.len() - 1].iter().all(|wait| !wait),
            "{asked:?}"
        );
    }

    #[test]
    fn ordered_reports_a_panic_and_checks_the_host() {
        let work: Work<usize, usize> = Arc::new(|c, _| {
            assert!(c != 2, "chunk 2 breaks");
            c
        });
        for threads in [1, 3] {
            let mut ordered = Ordered::new(threads, 2, work.clone()).unwrap();
            let host = Counting::default();
            let mut chunks = 0..10;
            let mut next = || ordered.next(&host, |_| chunks.next());
            assert_eq!(next(), Ok(Some(0)));
            assert_eq!(next(), Ok(Some(1)));
            assert_eq!(next(), Err(Error::Broken(Broken::Panicked)));
            assert_eq!(host.checks.get(), 2);
        }
    }

    #[test]
    fn ordered_dropped_takes_back_what_no_worker_started() {
        let started = Arc::new(AtomicUsize::new(0));
        let counter = started.clone();
        let work: Work<usize, usize> = Arc::new(move |c, _| {
            counter.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(20));
            c
        });
        let mut ordered = Ordered::new(2, 50, work).unwrap();
        let mut chunks = 0..1000;
        assert_eq!(ordered.next(&Plain, |_| chunks.next()), Ok(Some(0)));
        let back = ordered.take_back();
        drop(ordered);
        std::thread::sleep(Duration::from_millis(100));
        // 100 handed out: the caller's one, a few the worker started; the rest back.
        assert!(back.len() > 90, "{}", back.len());
        assert!(started.load(Ordering::Relaxed) < 10);
    }
}
