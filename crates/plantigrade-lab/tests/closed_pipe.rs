//! `plantigrade-lab … | head` closes the pipe while the lab is still printing: the lab
//! ends quietly, as other command-line tools do, instead of panicking in `println!`.

#[cfg(unix)]
#[test]
fn printing_into_a_closed_pipe_ends_quietly() {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::{Command, Stdio};

    // A pipe whose reading end is already closed: every write into it fails.
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe(2) failed");
    // SAFETY: both descriptors were just created by pipe(2) and are owned here only.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_plantigrade-lab"))
        .arg("mannequin")
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("the lab runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
