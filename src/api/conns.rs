//! A cap on the TCP connections one client address may hold open (issue 17). The caps in
//! [`super::holds`] count streams and long-polls, which are requests; a client can also hold
//! connections that send one request and then sit idle in keep-alive, or none at all, and so
//! use up the process's connection budget and starve every other client. Each accepted
//! connection takes a [`ConnSlot`] kept in the connection's own data, so it is freed the
//! moment actix drops the connection; a connection beyond the cap is shut down at once,
//! before a byte of it is read.
//!
//! Behind a reverse proxy every connection comes from the proxy, so the cap is off when
//! `--trust-forwarded-for` is set: the proxy caps its clients' connections (docs/operators.md).

use std::any::Any;
use std::collections::HashMap;
use std::net::{IpAddr, Shutdown};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::dev::Extensions;

/// Open connections by client address, capped at `max_per_address` each.
pub struct ConnCaps {
    max_per_address: usize,
    open: Mutex<HashMap<String, usize>>,
    refused: AtomicU64,
}

/// One open connection of an address; dropping it (with the connection) frees its place.
pub struct ConnSlot {
    caps: Arc<ConnCaps>,
    key: String,
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        let mut open = self
            .caps
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.key);
            }
        }
    }
}

impl ConnCaps {
    /// A cap of `max_per_address` connections (at least 1) per client address.
    pub fn new(max_per_address: usize) -> Arc<ConnCaps> {
        Arc::new(ConnCaps {
            max_per_address: max_per_address.max(1),
            open: Mutex::new(HashMap::new()),
            refused: AtomicU64::new(0),
        })
    }

    /// A place for one more connection from `ip`, or None when that address holds
    /// `max_per_address` already.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<ConnSlot> {
        let key = super::holds::address_key(ip);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(key.clone()).or_insert(0);
        if *n >= self.max_per_address {
            drop(open);
            self.refused.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *n += 1;
        Some(ConnSlot {
            caps: self.clone(),
            key,
        })
    }

    /// Connections open from `ip` now.
    pub fn open_from(&self, ip: IpAddr) -> usize {
        let key = super::holds::address_key(ip);
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.get(&key).copied().unwrap_or(0)
    }

    /// Connections shut down at accept because their address was at the cap.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// actix's per-connection hook (`HttpServer::on_connect`): admits the connection (its
    /// slot lives in the connection's data) or shuts its socket down at once, so actix reads
    /// end-of-stream and closes it without serving a request.
    pub fn on_connect(self: &Arc<Self>, conn: &dyn Any, data: &mut Extensions) {
        let Some(tcp) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        let Ok(peer) = tcp.peer_addr() else { return };
        match self.admit(peer.ip()) {
            Some(slot) => {
                data.insert(slot);
            }
            None => {
                if self.refused() % 1000 == 1 {
                    tracing::warn!(
                        address = %super::holds::address_key(peer.ip()),
                        max = self.max_per_address,
                        refused = self.refused(),
                        "connections refused: this address holds as many as it may"
                    );
                }
                let _ = socket2::SockRef::from(tcp).shutdown(Shutdown::Both);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_at_its_cap_is_refused_until_one_of_its_connections_closes() {
        let caps = ConnCaps::new(2);
        let a: IpAddr = "127.0.0.2".parse().expect("an address");
        let b: IpAddr = "127.0.0.3".parse().expect("an address");
        let first = caps.admit(a).expect("a place");
        let _second = caps.admit(a).expect("a place");
        assert!(caps.admit(a).is_none());
        assert_eq!(caps.refused(), 1);
        assert!(caps.admit(b).is_some(), "another address is not affected");
        drop(first);
        assert_eq!(caps.open_from(a), 1);
        assert!(caps.admit(a).is_some());
    }

    #[test]
    fn ipv6_addresses_of_one_64_share_a_cap() {
        let caps = ConnCaps::new(1);
        let _one = caps
            .admit("2001:db8:1:2::10".parse().expect("an address"))
            .expect("a place");
        assert!(
            caps.admit("2001:db8:1:2::99".parse().expect("an address"))
                .is_none()
        );
        assert!(
            caps.admit("2001:db8:1:3::10".parse().expect("an address"))
                .is_some()
        );
    }
}
