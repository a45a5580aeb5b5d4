//! The address guard: a webhook endpoint may not make the product call into its own network.
//! An address is refused when it is loopback, private, shared (carrier-grade NAT), link-local
//! (which holds the cloud metadata service, 169.254.169.254), multicast, unspecified,
//! broadcast or reserved, IPv4 or IPv6 (IPv4-mapped IPv6 is judged as the IPv4 it maps), unless
//! it is in a range the operator allowed (`WEBHOOK_ALLOWED_PRIVATE_RANGES`).
//!
//! The worker applies it to every address a host name resolves to, at the moment it connects
//! (so a DNS answer that changes after the endpoint was saved cannot slip through), and to an
//! address written in the URL; the API applies it to the latter when an endpoint is saved.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

#[derive(Debug, Clone, Default)]
pub struct AddressGuard {
    allowed: Vec<IpNet>,
}

impl AddressGuard {
    pub fn new(allowed: Vec<IpNet>) -> Self {
        Self { allowed }
    }

    /// Why `ip` may not be called, or `None` when it may.
    pub fn refusal(&self, ip: IpAddr) -> Option<&'static str> {
        if self.allowed.iter().any(|range| range.contains(&ip)) {
            return None;
        }
        match ip {
            IpAddr::V4(v4) => refusal_v4(v4),
            IpAddr::V6(v6) => refusal_v6(v6).or_else(|| embedded_v4(v6).and_then(refusal_v4)),
        }
    }
}

impl AddressGuard {
    /// Why the address written as `url`'s host may not be called, if it is one (a host name
    /// is judged when it is resolved).
    pub fn url_refusal(&self, url: &url::Url) -> Option<&'static str> {
        let ip = match url.host()? {
            url::Host::Ipv4(ip) => IpAddr::V4(ip),
            url::Host::Ipv6(ip) => IpAddr::V6(ip),
            url::Host::Domain(_) => return None,
        };
        self.refusal(ip)
    }
}

fn refusal_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() {
        Some("a private address")
    } else if a == 100 && (64..128).contains(&b) {
        Some("a shared (carrier-grade NAT) address")
    } else if ip.is_link_local() {
        Some("a link-local address (where cloud metadata services live)")
    } else if ip.is_multicast() {
        Some("a multicast address")
    } else if ip.is_unspecified() || a == 0 {
        Some("an unspecified address")
    } else if ip.is_broadcast() || a >= 240 {
        Some("a reserved address")
    } else {
        None
    }
}

/// The IPv4 host an IPv6 address reaches through the network: IPv4-mapped (`::ffff:0:0/96`)
/// and IPv4-compatible (`::/96`) addresses, NAT64's well-known prefix (`64:ff9b::/96`, which
/// a NAT64 gateway forwards to the IPv4 address in its last 32 bits, private ones included)
/// and 6to4 (`2002::/16`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let v4 = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match ip.segments() {
        [0, 0, 0, 0, 0, 0xffff | 0, high, low] | [0x64, 0xff9b, 0, 0, 0, 0, high, low] => {
            Some(v4(high, low))
        }
        [0x2002, high, low, ..] => Some(v4(high, low)),
        _ => None,
    }
}

fn refusal_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let [first, second, ..] = ip.segments();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_unspecified() {
        Some("an unspecified address")
    } else if (first & 0xfe00) == 0xfc00 {
        Some("a private (unique local) address")
    } else if (first & 0xffc0) == 0xfe80 {
        Some("a link-local address")
    } else if (first & 0xffc0) == 0xfec0 {
        Some("a private (site-local) address")
    } else if first == 0x64 && second == 0xff9b && ip.segments()[2] == 1 {
        // 64:ff9b:1::/48, NAT64 prefixes of a local network: where the IPv4 address sits
        // depends on the prefix length the network chose.
        Some("a local NAT64 address")
    } else if ip.is_multicast() {
        Some("a multicast address")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(guard: &AddressGuard, ip: &str) -> bool {
        guard.refusal(ip.parse().unwrap()).is_some()
    }

    #[test]
    fn internal_addresses_are_refused_and_public_ones_pass() {
        let guard = AddressGuard::default();
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "100.64.0.1",
            "169.254.169.254",
            "224.0.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            // IPv4 hosts inside IPv6: IPv4-compatible, NAT64, 6to4.
            "::10.0.0.5",
            "64:ff9b::a00:5",
            "64:ff9b::169.254.169.254",
            "2002:a00:5::1",
            "2002:7f00:1::",
            "64:ff9b:1::a00:5",
            "fec0::1",
        ] {
            assert!(refused(&guard, ip), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:1.1.1.1",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert!(!refused(&guard, ip), "{ip}");
        }
    }

    #[test]
    fn the_operators_ranges_pass() {
        let guard = AddressGuard::new(vec!["127.0.0.0/8".parse().unwrap()]);
        assert!(!refused(&guard, "127.0.0.1"));
        assert!(refused(&guard, "10.0.0.1"));
        assert!(refused(&guard, "169.254.169.254"));
    }
}
