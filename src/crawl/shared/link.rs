//! The fetch tasks' connection to the shared frontier's server: one,
//! made when first needed and made again after a failure, each call on a
//! blocking thread (the `redis` client here is synchronous, and the
//! writer's connection is the writer's own).

use std::sync::{Arc, Mutex};

use redis::{Client, Connection, RedisError, RedisResult};

pub struct Link {
    client: Client,
    conn: Mutex<Option<Connection>>,
}

impl Link {
    pub fn new(url: &str) -> Option<Arc<Link>> {
        let client = Client::open(url).ok()?;
        Some(Arc::new(Link {
            client,
            conn: Mutex::new(None),
        }))
    }

    /// Runs `f` on the connection, here and now (a blocking call).
    pub fn call<T>(&self, f: impl FnOnce(&mut Connection) -> RedisResult<T>) -> RedisResult<T> {
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let c = match conn.as_mut() {
            Some(c) => c,
            None => conn.insert(super::connect_raw(&self.client)?),
        };
        let answer = f(c);
        if answer.is_err() {
            // Connected anew on the next call.
            *conn = None;
        }
        answer
    }

    /// Runs `f` on the connection from a blocking thread.
    pub async fn ask<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Connection) -> RedisResult<T> + Send + 'static,
    ) -> RedisResult<T> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.call(f))
            .await
            .map_err(|e| RedisError::from(std::io::Error::other(e.to_string())))?
    }

    /// Runs `f` later, from a blocking thread, when there is a runtime
    /// to run it (a drop cannot wait for it).
    pub fn send(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Connection) -> RedisResult<()> + Send + 'static,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let me = self.clone();
        runtime.spawn_blocking(move || {
            if let Err(e) = me.call(f) {
                tracing::warn!(error = %e, "shared frontier not told");
            }
        });
    }
}
