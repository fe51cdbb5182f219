//! Exponential back-off of the background loops (scheduler, heartbeat, sweeps, presence
//! writer, tournament driver): a loop whose step fails waits longer each time, up to a cap,
//! instead of spinning against a failing database, and logs once per outage, not per retry.

use std::time::Duration;

/// Shortest pause after a failure.
pub const MIN: Duration = Duration::from_millis(100);
/// Longest pause between retries of a background loop.
pub const MAX: Duration = Duration::from_secs(5);

/// A loop's failure streak: the next pause, and whether the streak was logged.
#[derive(Debug)]
pub struct Backoff {
    what: &'static str,
    max: Duration,
    next: Duration,
    failures: u64,
}

impl Backoff {
    /// For the loop named `what` (in its log lines), pausing [`MIN`] doubling up to `max`.
    pub fn new(what: &'static str, max: Duration) -> Backoff {
        Backoff {
            what,
            max,
            next: MIN.min(max),
            failures: 0,
        }
    }

    /// A step failed: returns how long to pause before the next one. The first failure of a
    /// streak is logged at warn, the others at debug.
    pub fn failed(&mut self, error: &dyn std::fmt::Display) -> Duration {
        self.failures += 1;
        if self.failures == 1 {
            tracing::warn!(task = self.what, %error, "background task failing; backing off");
        } else {
            tracing::debug!(task = self.what, %error, failures = self.failures, "still failing");
        }
        let pause = self.next;
        self.next = (self.next * 2).min(self.max);
        pause
    }

    /// A step succeeded: the streak ends (logged once if there was one).
    pub fn succeeded(&mut self) {
        if self.failures > 0 {
            tracing::info!(
                task = self.what,
                failures = self.failures,
                "background task recovered"
            );
        }
        self.failures = 0;
        self.next = MIN.min(self.max);
    }

    /// Failures in the current streak.
    pub fn failures(&self) -> u64 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_failing_for_a_minute_retries_about_seventeen_times_not_thousands() {
        let mut b = Backoff::new("test", MAX);
        let mut waited = Duration::ZERO;
        let mut attempts = 0;
        while waited < Duration::from_secs(60) {
            attempts += 1;
            waited += b.failed(&"disk full");
        }
        // 0.1 + 0.2 + ... + 3.2 s (6.3 s in 6 tries), then every 5 s: 6 + 11 = 17 tries.
        assert_eq!(attempts, 17);
        assert_eq!(b.failed(&"x"), MAX, "capped");
        b.succeeded();
        assert_eq!(b.failures(), 0);
        assert_eq!(b.failed(&"again"), MIN, "a new streak starts short");
    }
}
