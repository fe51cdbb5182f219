//! Per-key rate limits on registration and set creation (SPEC section 10), with `governor`.
//! Moves are never limited here: one move per game is in flight at a time by the game lock.

use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

/// The arena's limiters.
pub struct Limits {
    register: DefaultKeyedRateLimiter<String>,
    create_bot: DefaultKeyedRateLimiter<String>,
    create_set: DefaultKeyedRateLimiter<String>,
}

fn quota(per_min: u32) -> Quota {
    Quota::per_minute(NonZeroU32::new(per_min.max(1)).unwrap_or(NonZeroU32::MIN))
}

impl Limits {
    /// `register_per_min` registrations per client (address or player), `sets_per_min` set
    /// creations per bot, each with a burst of the same size.
    pub fn new(register_per_min: u32, sets_per_min: u32) -> Limits {
        Limits {
            register: RateLimiter::keyed(quota(register_per_min)),
            create_bot: RateLimiter::keyed(quota(register_per_min)),
            create_set: RateLimiter::keyed(quota(sets_per_min)),
        }
    }

    fn check(l: &DefaultKeyedRateLimiter<String>, key: &str, name: &str) -> Result<(), ApiError> {
        l.check_key(&key.to_string()).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            // Rounded up: a client that waits exactly this long is let through.
            ApiError::rate_limited(name, wait.as_millis().div_ceil(1000).max(1) as u64)
        })
    }

    /// 429 `rate_limited` (`details.limit` = "register") when over the limit.
    pub fn check_register(&self, key: &str) -> Result<(), ApiError> {
        Self::check(&self.register, key, "register")
    }

    /// 429 `rate_limited` (`details.limit` = "create_bot") when a player creates bots too fast.
    pub fn check_create_bot(&self, key: &str) -> Result<(), ApiError> {
        Self::check(&self.create_bot, key, "create_bot")
    }

    /// 429 `rate_limited` (`details.limit` = "create_set") when over the limit.
    pub fn check_create_set(&self, key: &str) -> Result<(), ApiError> {
        Self::check(&self.create_set, key, "create_set")
    }

    /// Forgets every key whose quota has refilled (it would be let through as if new), so a
    /// stream of one-off clients does not grow the maps forever. Returns the keys still held.
    pub fn forget_idle(&self) -> usize {
        [&self.register, &self.create_bot, &self.create_set]
            .iter()
            .map(|l| {
                l.retain_recent();
                l.shrink_to_fit();
                l.len()
            })
            .sum()
    }

    /// Runs [`Limits::forget_idle`] every `every`, for as long as the arena runs.
    pub async fn forget_idle_every(limits: std::sync::Arc<Limits>, every: std::time::Duration) {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            let held = limits.forget_idle();
            tracing::debug!(held, "rate limiter keys pruned");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refilled_keys_are_forgotten_and_busy_ones_kept() {
        // 60,000 a minute: one request's share refills in 1 ms.
        let fast = Limits::new(60_000, 60_000);
        for k in 0..100 {
            assert!(fast.check_register(&format!("client-{k}")).is_ok());
        }
        assert!(fast.check_create_set("bot-1").is_ok());
        assert_eq!(fast.register.len(), 100);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(fast.forget_idle(), 0);
        assert_eq!(fast.register.len(), 0);

        // One a minute: a key that was just used is still limited, so it is kept.
        let slow = Limits::new(1, 1);
        assert!(slow.check_register("a").is_ok());
        assert!(slow.check_register("a").is_err());
        assert_eq!(slow.forget_idle(), 1);
        assert!(
            slow.check_register("a").is_err(),
            "still limited after pruning"
        );
    }
}
