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

    /// On this thread only, so tests running beside it do not count. The
    /// spin runs until 0.3 s of CPU show up (a machine busy with other
    /// tests gives it less than its wall time), within a wall-time cap
    /// that a reading stuck at one value would hit.
    #[test]
    fn a_busy_loop_shows_up_and_sleep_does_not() {
        let cpu = || cpu_seconds("thread-self").expect("this is Linux");
        let start = cpu();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while cpu() - start < 0.3 {
            assert!(t.elapsed().as_secs() < 20, "20 s of spinning counted {} s", cpu() - start);
            for _ in 0..100_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
        }
        std::hint::black_box(x);
        let busy = cpu() - start;
        // Ticks are 10 ms: a thread cannot use more CPU than time passed.
        assert!(busy <= t.elapsed().as_secs_f64() + 0.02, "{busy} s of CPU in {:?}", t.elapsed());
        std::thread::sleep(std::time::Duration::from_millis(300));
        let idle = cpu() - start - busy;
        assert!(idle < 0.1, "300 ms of sleep counted {idle} s");
    }
}
