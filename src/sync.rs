//! The one mutex policy (a leaf: every layer may use it). A mutex here guards a value
//! that is taken or replaced whole, so a panic elsewhere (caught, never unwound into
//! Python) cannot leave it half-changed: a poisoned mutex is used as it is.

use std::sync::{Mutex, MutexGuard};

/// `mutex` locked, poisoned or not.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_poisoned_mutex_is_used_as_it_is() {
        let mutex = Arc::new(Mutex::new(1));
        let poisoner = mutex.clone();
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.lock().unwrap();
            panic!("poisons the mutex");
        })
        .join();
        assert!(mutex.is_poisoned());
        assert_eq!(*lock(&mutex), 1);
    }
}
