//! The Chromium process: started by us (never by a library) with its
//! DevTools protocol on two pipes (`--remote-debugging-pipe`: fd 3 in,
//! fd 4 out), in a fresh profile directory, and tied to our life twice:
//! `PR_SET_PDEATHSIG` kills it when the crawler dies, and a closed pipe
//! makes it quit; its own helpers (zygote, renderers) watch it in turn.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

/// Where the browser is looked for unless `CRAWLSCOPE_CHROMIUM` names one.
pub const DEFAULT_BINARY: &str = "/usr/bin/chromium";

/// The flags every browser of ours runs with. The background-networking
/// ones keep it from calling home (a closed network refuses those
/// connections); the backgrounding ones keep a tab that is not in front
/// running its timers at full speed, as a user's tab would: a page polled
/// once a second instead of every 100 ms would look settled.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--remote-debugging-pipe",
];

/// The browser binary to start.
pub fn binary() -> PathBuf {
    std::env::var_os("CRAWLSCOPE_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_BINARY))
}

/// A started browser: the process and its profile, which goes with it.
pub struct Process {
    child: Child,
    profile: PathBuf,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Starts `binary` headless with its protocol on pipes: the process, the
/// pipe to it and the pipe from it.
pub fn start(binary: &Path) -> std::io::Result<(Process, pipe::Sender, pipe::Receiver)> {
    let profile = std::env::temp_dir().join(format!(
        "crawlscope-chromium-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&profile)?;
    let (cmd_read, cmd_write) = cloexec_pipe()?;
    let (out_read, out_write) = cloexec_pipe()?;
    let (child_in, child_out) = (cmd_read.as_raw_fd(), out_write.as_raw_fd());
    let mut cmd = Command::new(binary);
    cmd.args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    // SAFETY: between fork and exec only async-signal-safe calls (fcntl,
    // dup2, prctl, getppid) on fds this process owns.
    unsafe {
        cmd.pre_exec(move || {
            // Out of the way of 3 and 4 first, whatever numbers they had.
            let a = libc::fcntl(child_in, libc::F_DUPFD_CLOEXEC, 10);
            let b = libc::fcntl(child_out, libc::F_DUPFD_CLOEXEC, 10);
            if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The crawler may have died before the prctl took hold.
            if libc::getppid() == 1 {
                return Err(std::io::Error::other("the crawler is gone"));
            }
            Ok(())
        });
    }
    let child = cmd.spawn();
    // The child holds its own copies now.
    drop((cmd_read, out_write));
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&profile);
            return Err(e);
        }
    };
    Ok((
        Process { child, profile },
        pipe::Sender::from_owned_fd(cmd_write)?,
        pipe::Receiver::from_owned_fd(out_read)?,
    ))
}

/// A pipe whose ends do not leak into other children.
fn cloexec_pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is two ints, as pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both fds were just opened and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
