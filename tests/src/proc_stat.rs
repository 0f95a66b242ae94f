//! CPU time a process has used, from Linux's `/proc/PID/stat`, for tests
//! that check an idle window sleeps. Standard library only, so the
//! renderer's window test can include this file by path (as it does
//! `xvfb.rs`).

/// Clock ticks per second of `/proc`'s times: `USER_HZ`, which the kernel
/// fixes at 100 for user space on every mainstream architecture.
const USER_HZ: f64 = 100.0;

/// User plus system CPU seconds of every thread of process `pid` (`self`
/// for this one, `thread-self` for the calling thread alone), or None when
/// it cannot be read (not Linux, process gone).
pub fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces:
    // count fields after its closing parenthesis, where field 3 starts.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15, so 11 and 12 after field 3.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / USER_HZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// On this thread only, so tests running beside it do not count.
    fn a_busy_loop_shows_up_and_sleep_does_not() {
        let start = cpu_seconds("thread-self").expect("this is Linux");
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 300 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let busy = cpu_seconds("thread-self").unwrap() - start;
        assert!(busy >= 0.2, "300 ms of spinning counted {busy} s");
        std::thread::sleep(std::time::Duration::from_millis(300));
        let idle = cpu_seconds("thread-self").unwrap() - start - busy;
        assert!(idle < 0.1, "300 ms of sleep counted {idle} s");
    }
}
