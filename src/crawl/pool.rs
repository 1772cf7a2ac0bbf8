//! A fixed pool of parser threads, one per core. Parsing and indexing are
//! CPU work: a bounded pool keeps them off the async reactor without the
//! dozens of threads (and their allocator heaps) tokio's blocking pool
//! would grow to under a fast crawl.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

pub struct ParsePool {
    jobs: Sender<Job>,
}

impl ParsePool {
    pub fn new(threads: usize) -> std::io::Result<ParsePool> {
        let (jobs, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads.max(1) {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("crawlscope-parse-{i}"))
                .spawn(move || work(&rx))?;
        }
        Ok(ParsePool { jobs })
    }

    /// Runs `f` on the pool; None if it panicked.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            // A panic in a parser must not take the pool thread with it;
            // the dropped sender tells the caller.
            if let Ok(v) = std::panic::catch_unwind(AssertUnwindSafe(f)) {
                let _ = tx.send(v);
            }
        });
        self.jobs.send(job).ok()?;
        rx.await.ok()
    }
}

fn work(rx: &Mutex<Receiver<Job>>) {
    loop {
        let job = match rx.lock() {
            Ok(r) => r.recv(),
            Err(p) => p.into_inner().recv(),
        };
        match job {
            Ok(job) => job(),
            // The pool was dropped: the crawl is over.
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_and_a_panic_is_contained() {
        let pool = ParsePool::new(2).unwrap();
        assert_eq!(pool.run(|| 6 * 7).await, Some(42));
        let none: Option<u32> = pool.run(|| panic!("bad page")).await;
        assert_eq!(none, None);
        // The pool still works after a panic.
        assert_eq!(pool.run(|| 1).await, Some(1));
    }
}
