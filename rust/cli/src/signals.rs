//! SIGINT, SIGTERM and SIGHUP as requests to save and stop (`dedup --state`), SIGALRM as a
//! wake-up for a checkpoint while the input is idle, and SIGPIPE ignored, so a write to a closed
//! stdout fails (EPIPE) and the run saves what was written before it ends by SIGPIPE. The handlers only store to atomics and
//! write a byte to a self-pipe, which a reader about to wait for input polls beside it (a flag
//! alone would miss a signal arriving just before the wait); they are installed without
//! SA_RESTART, so a read returns EINTR too. A second stop signal ends the process at once (a save can wait on a stuck
//! stdout or a lock; the one in progress is left to the journal).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

static STOP: AtomicI32 = AtomicI32::new(0);
static ALARM: AtomicBool = AtomicBool::new(false);
/// The write end of the self-pipe each handler writes a byte to, -1 before [`install`].
static WAKE_WRITE: AtomicI32 = AtomicI32::new(-1);
/// Its read end, which a reader polls beside its input.
static WAKE_READ: AtomicI32 = AtomicI32::new(-1);

const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_stop(signal: libc::c_int) {
    if STOP.swap(signal, Ordering::SeqCst) != 0 {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + signal) };
    }
    wake();
}

extern "C" fn on_alarm(_: libc::c_int) {
    ALARM.store(true, Ordering::SeqCst);
    wake();
}

/// One byte into the self-pipe, so a reader waiting in `poll` wakes even when the signal came
/// between its look at the flags and the wait (the pipe is non-blocking: a full pipe is awake
/// already).
fn wake() {
    let fd = WAKE_WRITE.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write is async-signal-safe; errno is saved and restored around it.
        unsafe {
            let errno = *libc::__errno_location();
            libc::write(fd, b"!".as_ptr().cast(), 1);
            *libc::__errno_location() = errno;
        }
    }
}

/// The fd a blocking reader polls beside its input: readable once a handler ran.
pub fn wake_fd() -> Option<libc::c_int> {
    let fd = WAKE_READ.load(Ordering::SeqCst);
    (fd >= 0).then_some(fd)
}

/// Empties the self-pipe; then look at the flags ([`stop_requested`], [`take_alarm`]).
pub fn drain() {
    if let Some(fd) = wake_fd() {
        let mut buf = [0u8; 64];
        // SAFETY: reading into a local buffer from our non-blocking pipe.
        while unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }
}

/// Installs the handlers; a stop signal the process was started ignoring (`nohup`, a
/// background job of a non-interactive shell) stays ignored.
pub fn install() {
    let mut fds = [-1; 2];
    // SAFETY: a pipe into a two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } == 0 {
        WAKE_READ.store(fds[0], Ordering::SeqCst);
        WAKE_WRITE.store(fds[1], Ordering::SeqCst);
    }
    for signal in STOP_SIGNALS {
        if !ignored(signal) {
            set_handler(signal, on_stop);
        }
    }
    set_handler(libc::SIGALRM, on_alarm);
    // SAFETY: ignoring a signal; die_of restores its default action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: reading the current disposition into a zeroed sigaction.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

fn set_handler(signal: libc::c_int, handler: extern "C" fn(libc::c_int)) {
    // SAFETY: a handler that only touches atomics (or calls _exit); flags 0, so no SA_RESTART.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as *const () as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        action.sa_flags = 0;
        libc::sigaction(signal, &action, std::ptr::null_mut());
    }
}

/// The stop signal received, if any.
pub fn stop_requested() -> Option<libc::c_int> {
    match STOP.load(Ordering::Relaxed) {
        0 => None,
        signal => Some(signal),
    }
}

/// True once after the alarm went off.
pub fn take_alarm() -> bool {
    ALARM.swap(false, Ordering::Relaxed)
}

/// SIGALRM after `delay` (at least a millisecond), replacing any alarm pending.
pub fn arm_alarm(delay: Duration) {
    let delay = delay.max(Duration::from_millis(1));
    let timer = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: delay.as_secs() as libc::time_t,
            tv_usec: delay.subsec_micros() as libc::suseconds_t,
        },
    };
    // SAFETY: a valid itimerval; the old value is not wanted.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) };
}

/// Ends the process by `signal` with its default action, so the parent sees the conventional
/// status (128 + signal in a shell).
pub fn die_of(signal: libc::c_int) -> ! {
    // SAFETY: restoring the default action and raising the signal at this thread.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
        libc::_exit(128 + signal)
    }
}
