//! `serve-demo`: the procedural demo site alone, for benches and tests.

use super::{CliError, CliResult};

pub fn run(port: u16, pages: u32) -> CliResult {
    let rt = super::runtime()?;
    rt.block_on(async {
        let (addr, server) = crate::demo::spawn(port, pages)
            .await
            .map_err(|source| CliError::Serve { port, source })?;
        outln!("http://{addr}/");
        eprintln!("serving {pages} demo pages; Ctrl-C stops");
        tokio::select! {
            r = server => match r {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(CliError::DemoServer(e)),
                Err(source) => Err(CliError::Task { what: "demo server", source }),
            },
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}
