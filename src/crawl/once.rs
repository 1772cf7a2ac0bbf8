//! A value per origin, loaded once even when many workers ask at once:
//! each origin's robots rules and its sitemaps' URLs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

pub struct PerOrigin<T> {
    cells: Mutex<HashMap<String, Arc<OnceCell<Arc<T>>>>>,
}

impl<T> Default for PerOrigin<T> {
    fn default() -> Self {
        PerOrigin {
            cells: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> PerOrigin<T> {
    /// The origin's value; the first caller loads it, the others wait.
    pub async fn get_or_load<F, Fut>(&self, origin: &str, load: F) -> Arc<T>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = T>,
    {
        let cell = {
            let mut cells = self.cells.lock().unwrap_or_else(|p| p.into_inner());
            cells.entry(origin.to_string()).or_default().clone()
        };
        cell.get_or_init(|| async { Arc::new(load().await) })
            .await
            .clone()
    }
}
