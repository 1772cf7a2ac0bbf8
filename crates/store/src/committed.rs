//! What writes look up most and what never changes once committed — a
//! stem's word id, a URL's page id — kept in a bounded map the store
//! shares between transactions (and, for word ids, with the parser
//! threads). A transaction's new pairs join it only after that
//! transaction commits, so an aborted one leaves nothing behind.

use std::borrow::Borrow;
use std::hash::Hash;
use std::sync::{RwLock, RwLockReadGuard};

use rustc_hash::FxHashMap as HashMap;

pub struct Committed<K, V> {
    /// Read-locked by every look-up, so that parser threads and the
    /// writer never wait on each other; written once a commit.
    map: RwLock<HashMap<K, V>>,
    /// Past this many pairs the map is emptied, which bounds memory; the
    /// store still answers what the map forgot.
    max: usize,
}

impl<K: Hash + Eq, V: Copy> Committed<K, V> {
    pub fn new(max: usize) -> Self {
        Committed {
            map: RwLock::new(HashMap::default()),
            max,
        }
    }

    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.read().get(key).copied()
    }

    /// Looks up the key of each of `items` under one lock, calling
    /// `found` with the items the map knows.
    pub fn get_each<T>(
        &self,
        items: &mut [T],
        key: impl Fn(&T) -> K,
        mut found: impl FnMut(&mut T, V),
    ) {
        let map = self.read();
        for item in items {
            if let Some(&v) = map.get(&key(item)) {
                found(item, v);
            }
        }
    }

    /// Adds the pairs a transaction has just committed.
    pub fn remember(&self, pairs: HashMap<K, V>) {
        if pairs.is_empty() {
            return;
        }
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        if map.len() + pairs.len() > self.max {
            map.clear();
        }
        map.extend(pairs);
    }

    fn read(&self) -> RwLockReadGuard<'_, HashMap<K, V>> {
        self.map.read().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_kept_up_to_the_bound_then_dropped() {
        let c: Committed<String, u32> = Committed::new(3);
        c.remember(
            [("a".to_string(), 1), ("b".to_string(), 2)]
                .into_iter()
                .collect(),
        );
        assert_eq!(c.get("a"), Some(1));
        c.remember([("c".to_string(), 3)].into_iter().collect());
        assert_eq!(c.get("b"), Some(2));
        // A fourth pair would pass the bound: the old ones go.
        c.remember([("d".to_string(), 4)].into_iter().collect());
        assert_eq!(c.get("a"), None);
        assert_eq!(c.get("d"), Some(4));
    }
}
