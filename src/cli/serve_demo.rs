//! `serve-demo`: the procedural demo site alone, for benches and tests.

use super::{CliError, CliResult};

pub fn run(port: u16, pages: u32) -> CliResult {
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(async {
        let (addr, server) = crate::demo::spawn(port, pages)
            .await
            .map_err(|e| CliError::Msg(format!("cannot serve on 127.0.0.1:{port}: {e}")))?;
        println!("http://{addr}/");
        eprintln!("serving {pages} demo pages; Ctrl-C stops");
        tokio::select! {
            r = server => match r {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(CliError::Msg(format!("demo server: {e}"))),
                Err(e) => Err(CliError::Msg(format!("demo server: {e}"))),
            },
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}
