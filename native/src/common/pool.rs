//! Worker threads kept for the life of a batch (`crate::vector`): each call hands them a
//! job and waits for it, instead of spawning threads. Spawning two a call (a stack
//! mapped, a thread cloned, then both torn down) cost tens of microseconds, which at 64
//! games was a tenth of a step of the batch.
//!
//! The work of a call is split by [`Claims`]: each thread takes the chunks of its own
//! share first, then what the others have not reached, so that a thread whose games
//! happened to end (a new game, a whole observation written) does not leave the others
//! waiting.

use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a thread waiting for the others (or a worker for the next job) keeps
/// checking before it sleeps on a condition variable: waking a sleeping thread took some
/// microseconds each way, a tenth of a step of 64 games, while a Python loop posts its
/// next step within a few microseconds. After a short spin it yields the core between
/// checks, so that on a busy machine the thread it waits for can have it. At 50 µs two
/// threads stepped 64 Medina games 1.49-2.03× as fast as one (bimodal: a step of 32
/// games is itself about 50 µs, so the worker often slept); at 200 µs, 1.93-2.00×
/// (`docs/benchmarks.md`, quiet machine).
const SPIN: Duration = Duration::from_micros(200);

/// Whether `done()` became true within [`SPIN`].
fn spin_until(done: impl Fn() -> bool) -> bool {
    for _ in 0..256 {
        if done() {
            return true;
        }
        std::hint::spin_loop();
    }
    let start = Instant::now();
    while start.elapsed() < SPIN {
        if done() {
            return true;
        }
        std::thread::yield_now();
    }
    done()
}

/// A job borrowed for one [`Pool::run`], its lifetime erased: `run` returns only once
/// every worker is done with it.
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn(usize) + Sync));

// SAFETY: the job is `Sync`, and `run` keeps it alive while any worker holds it.
unsafe impl Send for Job {}

/// What the caller and the workers share under the lock.
struct Round {
    job: Option<Job>,
    /// A worker's panic, resumed on the caller's thread.
    panic: Option<Box<dyn std::any::Any + Send>>,
    quit: bool,
}

struct Shared {
    round: Mutex<Round>,
    /// The number of the latest job (changed under the lock; read by spinning workers).
    posted: AtomicU64,
    /// Workers still running the current job.
    running: AtomicUsize,
    started: Condvar,
    finished: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Round> {
        // A panic is caught before it could poison the lock; a poisoned one still holds
        // a consistent round.
        self.round.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The calling thread and `threads - 1` workers.
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// The process that made the workers: a child forked from it has none of them.
    process: u32,
}

impl Pool {
    /// A pool of `threads` (at least 1: the caller alone; fewer where the system makes
    /// no more threads).
    pub fn new(threads: usize) -> Pool {
        let shared = Arc::new(Shared {
            round: Mutex::new(Round {
                job: None,
                panic: None,
                quit: false,
            }),
            posted: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            started: Condvar::new(),
            finished: Condvar::new(),
        });
        let workers = (1..threads.max(1))
            .map_while(|index| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("tabletop-vector-{index}"))
                    .spawn(move || work(&shared, index))
                    .ok()
            })
            .collect();
        Pool {
            shared,
            workers,
            process: std::process::id(),
        }
    }

    /// The threads that run a job (the caller's included).
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `job(t)` for every thread `t` (0 on the calling thread) and returns when all
    /// have returned; a panic in any is resumed here. In a process forked from the one
    /// that made the pool (its workers did not come along) the caller runs every `t`
    /// itself, one after another.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync)) {
        if self.workers.is_empty() {
            job(0);
            return;
        }
        if std::process::id() != self.process {
            for t in 0..self.threads() {
                job(t);
            }
            return;
        }
        {
            let mut round = self.shared.lock();
            // SAFETY: only the lifetime is erased; the guard below waits for every worker
            // to finish the job before `job` can go out of scope, even if this thread's
            // own share panics.
            let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(job) };
            round.job = Some(Job(erased));
            self.shared.running.store(self.workers.len(), Ordering::Release);
            self.shared.posted.fetch_add(1, Ordering::AcqRel);
            self.shared.started.notify_all();
        }
        let waiting = WaitForWorkers(&self.shared);
        job(0);
        drop(waiting);
        if let Some(panic) = self.shared.lock().panic.take() {
            resume_unwind(panic);
        }
    }
}

/// Waits (when dropped) until the workers have finished the current job.
struct WaitForWorkers<'a>(&'a Shared);

impl Drop for WaitForWorkers<'_> {
    fn drop(&mut self) {
        let shared = self.0;
        let finished = || shared.running.load(Ordering::Acquire) == 0;
        if !spin_until(finished) {
            let mut round = shared.lock();
            while !finished() {
                round = shared.finished.wait(round).unwrap_or_else(PoisonError::into_inner);
            }
        }
        shared.lock().job = None;
    }
}

fn work(shared: &Shared, index: usize) {
    let mut seen = 0;
    loop {
        let posted = || shared.posted.load(Ordering::Acquire) != seen;
        let job = {
            let round = if spin_until(posted) {
                shared.lock()
            } else {
                let mut round = shared.lock();
                while !posted() && !round.quit {
                    round = shared.started.wait(round).unwrap_or_else(PoisonError::into_inner);
                }
                round
            };
            if round.quit {
                return;
            }
            seen = shared.posted.load(Ordering::Acquire);
            round.job
        };
        let outcome = match job {
            // SAFETY: the job lives until `running` falls to 0 (`Pool::run`).
            Some(Job(job)) => catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(index) })),
            None => Ok(()),
        };
        if let Err(panic) = outcome {
            shared.lock().panic.get_or_insert(panic);
        }
        if shared.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Under the lock: the caller checks `running` and sleeps while holding it.
            let _round = shared.lock();
            shared.finished.notify_one();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if std::process::id() != self.process {
            // A forked child: the workers (and whatever lock they held) are its parent's.
            std::mem::forget(std::mem::take(&mut self.workers));
            return;
        }
        self.shared.lock().quit = true;
        self.shared.posted.fetch_add(1, Ordering::AcqRel);
        self.shared.started.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// The items `0..n` in chunks, each thread's share first its own: thread `t` takes the
/// chunks of its contiguous share from the front, and once they are done takes what is
/// left of the others' from their back. Each thread so steps the same games call after
/// call (their observations and masks stay in its core's cache: a game handed to the
/// other core would move every line its step writes), and a thread whose games cost
/// more than the other's (games that ended) is helped at the end.
pub struct Claims {
    /// Per thread, the chunks of its share not yet taken: `front | back << 32`.
    shares: Vec<AtomicU64>,
    n: usize,
    chunk: usize,
}

impl Claims {
    /// `n` items for `threads` threads: about eight chunks a thread, each a multiple of
    /// eight items (so that the threads' one-byte and eight-byte outputs per item meet
    /// on few cache lines).
    pub fn new(n: usize, threads: usize) -> Claims {
        let threads = threads.max(1);
        let chunk = (n / (threads * 8)).max(1).next_multiple_of(8);
        let chunks = n.div_ceil(chunk) as u64;
        let shares = (0..threads as u64)
            .map(|t| {
                let (front, back) = (t * chunks / threads as u64, (t + 1) * chunks / threads as u64);
                AtomicU64::new(front | back << 32)
            })
            .collect();
        Claims { shares, n, chunk }
    }

    /// Items a chunk holds.
    pub fn chunk(&self) -> usize {
        self.chunk
    }

    /// The next chunk for thread `thread`: its own share's first, else another's last.
    pub fn next(&self, thread: usize) -> Option<Range<usize>> {
        let threads = self.shares.len();
        let own = thread % threads;
        let taken = take(&self.shares[own], true)
            .or_else(|| (1..threads).find_map(|k| take(&self.shares[(own + k) % threads], false)))?;
        let start = taken as usize * self.chunk;
        Some(start..(start + self.chunk).min(self.n))
    }
}

/// A chunk from the front or the back of a share (`Claims::shares`), if any is left.
fn take(share: &AtomicU64, front: bool) -> Option<u64> {
    let mut now = share.load(Ordering::Relaxed);
    loop {
        let (first, end) = (now & 0xFFFF_FFFF, now >> 32);
        if first >= end {
            return None;
        }
        let (after, taken) = if front {
            ((first + 1) | end << 32, first)
        } else {
            (first | (end - 1) << 32, end - 1)
        };
        match share.compare_exchange_weak(now, after, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(taken),
            Err(seen) => now = seen,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_run_once_on_every_thread_count() {
        for threads in 1..=4 {
            let pool = Pool::new(threads);
            for n in [0, 1, 7, 64, 1000] {
                for _ in 0..3 {
                    let counts: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                    let claims = Claims::new(n, pool.threads());
                    let ran = AtomicUsize::new(0);
                    pool.run(&|t| {
                        ran.fetch_add(1, Ordering::Relaxed);
                        while let Some(range) = claims.next(t) {
                            for i in range {
                                counts[i].fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                    assert_eq!(ran.load(Ordering::Relaxed), threads);
                    assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
                }
            }
        }
    }

    #[test]
    fn a_thread_takes_its_own_share_first_then_the_others_from_their_end() {
        let claims = Claims::new(64, 2); // eight chunks of eight: 0-3 thread 0's, 4-7 thread 1's
        let order: Vec<usize> = std::iter::from_fn(|| claims.next(0)).map(|r| r.start / 8).collect();
        assert_eq!(order, [0, 1, 2, 3, 7, 6, 5, 4]);
        assert_eq!(claims.next(1), None);
        let claims = Claims::new(70, 2); // nine chunks: 0-3 thread 0's, 4-8 thread 1's (the last 64..70)
        assert_eq!(claims.next(1), Some(32..40));
        let rest: Vec<_> = std::iter::from_fn(|| claims.next(0)).collect();
        assert_eq!(rest[..5], [0..8, 8..16, 16..24, 24..32, 64..70]);
        assert_eq!(rest.last(), Some(&(40..48)));
        assert_eq!(claims.next(1), None);
    }

    #[test]
    fn a_worker_panic_reaches_the_caller_and_the_pool_goes_on() {
        let pool = Pool::new(2);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            pool.run(&|t| {
                if t == 1 {
                    panic!("worker");
                }
            })
        }));
        assert!(caught.is_err());
        let ran = AtomicUsize::new(0);
        pool.run(&|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 2);
    }
}
