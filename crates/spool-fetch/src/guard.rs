//! Which addresses a fetch may reach: public ones only, unless private networks are allowed.
//! Checked after DNS resolution and on every redirect, so a public name that resolves to (or
//! redirects to) a private address is refused too.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

/// The error a refused address raises inside the HTTP client (found again in its source chain).
#[derive(Debug, thiserror::Error)]
#[error(
    "`{host}` resolves to {addr}, a private, loopback, link-local or other special-purpose address"
)]
pub struct Refused {
    pub host: String,
    pub addr: IpAddr,
}

/// The IANA IPv4 Special-Purpose Address Registry, every entry (globally reachable ones too:
/// a fetch has no business with AS112 or AMT relays), plus multicast and the reserved block.
const SPECIAL_V4: &[([u8; 4], u8)] = &[
    ([0, 0, 0, 0], 8),       // "this network"
    ([10, 0, 0, 0], 8),      // private use
    ([100, 64, 0, 0], 10),   // shared address space (carrier-grade NAT)
    ([127, 0, 0, 0], 8),     // loopback
    ([169, 254, 0, 0], 16),  // link local
    ([172, 16, 0, 0], 12),   // private use
    ([192, 0, 0, 0], 24),    // IETF protocol assignments (DS-Lite, PCP, TURN, NAT64 discovery)
    ([192, 0, 2, 0], 24),    // documentation (TEST-NET-1)
    ([192, 31, 196, 0], 24), // AS112-v4
    ([192, 52, 193, 0], 24), // AMT
    ([192, 88, 99, 0], 24),  // deprecated 6to4 relay anycast
    ([192, 168, 0, 0], 16),  // private use
    ([192, 175, 48, 0], 24), // direct delegation AS112 service
    ([198, 18, 0, 0], 15),   // benchmarking
    ([198, 51, 100, 0], 24), // documentation (TEST-NET-2)
    ([203, 0, 113, 0], 24),  // documentation (TEST-NET-3)
    ([224, 0, 0, 0], 4),     // multicast
    ([240, 0, 0, 0], 4),     // reserved, and 255.255.255.255 broadcast
];

/// The IANA IPv6 Special-Purpose Address Registry, every entry, plus multicast and the
/// deprecated site-local block. The forms that carry an IPv4 address (mapped, translated,
/// 6to4) are judged by the address they carry instead, below.
const SPECIAL_V6: &[([u16; 8], u8)] = &[
    ([0, 0, 0, 0, 0, 0, 0, 0], 128),             // unspecified
    ([0, 0, 0, 0, 0, 0, 0, 1], 128),             // loopback
    ([0x100, 0, 0, 0, 0, 0, 0, 0], 64),          // discard-only
    ([0x100, 0, 0, 1, 0, 0, 0, 0], 64),          // dummy IPv6 prefix
    ([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), // IETF protocol assignments (Teredo, PCP, benchmarking, AMT, AS112, ORCHID, ...)
    ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), // documentation
    ([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48), // direct delegation AS112 service
    ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), // documentation
    ([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16), // segment routing SIDs
    ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7),  // unique local
    ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), // link local
    ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10), // site local (deprecated)
    ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8),  // multicast
];

fn in_v4(ip: std::net::Ipv4Addr, (net, len): ([u8; 4], u8)) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    u32::from(ip) & mask == u32::from_be_bytes(net) & mask
}

fn in_v6(ip: std::net::Ipv6Addr, (net, len): ([u16; 8], u8)) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    let net = net
        .iter()
        .fold(0u128, |acc, &s| (acc << 16) | u128::from(s));
    u128::from(ip) & mask == net & mask
}

/// True for every special-purpose address (IANA's IPv4 and IPv6 registries: private,
/// loopback, link-local, shared, documentation, benchmarking, protocol assignments, reserved),
/// multicast and broadcast, and IPv6 forms that carry such an IPv4 address.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => SPECIAL_V4.iter().any(|&net| in_v4(v4, net)),
        IpAddr::V6(v6) => {
            // IPv4 carried inside IPv6 reaches the IPv4 address: judge that one.
            if let Some(v4) = v6.to_ipv4_mapped().or_else(|| embedded_v4(&v6.segments())) {
                return is_private(IpAddr::V4(v4));
            }
            SPECIAL_V6.iter().any(|&net| in_v6(v6, net))
        }
    }
}

/// The IPv4 address inside an IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96` and the
/// local-use `64:ff9b:1::/48`) or 6to4 (`2002::/16`) address.
fn embedded_v4(seg: &[u16; 8]) -> Option<std::net::Ipv4Addr> {
    let v4 = |hi: u16, lo: u16| {
        let [b0, b1] = hi.to_be_bytes();
        let [b2, b3] = lo.to_be_bytes();
        std::net::Ipv4Addr::new(b0, b1, b2, b3)
    };
    if seg[..6] == [0; 6] && (seg[6] != 0 || seg[7] > 1) {
        return Some(v4(seg[6], seg[7]));
    }
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || (seg[0] == 0x64 && seg[1] == 0xff9b && seg[2] == 1)
    {
        return Some(v4(seg[6], seg[7]));
    }
    if seg[0] == 0x2002 {
        return Some(v4(seg[1], seg[2]));
    }
    None
}

/// A DNS resolver that refuses private addresses.
pub struct GuardedResolver;

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: the client puts in the URL's port. The lookup blocks: off the runtime's
            // thread, so a deadline raced against it can still fire.
            let asked = host.clone();
            let addrs: Vec<SocketAddr> =
                tokio::task::spawn_blocking(move || (asked.as_str(), 0).to_socket_addrs())
                    .await
                    .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)??
                    .collect();
            if let Some(bad) = addrs.iter().find(|a| is_private(a.ip())) {
                return Err(Box::new(Refused {
                    host,
                    addr: bad.ip(),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The refusal for a URL whose host is an IP literal in a private range, if it is one.
pub fn literal_refusal(url: &url::Url) -> Option<Refused> {
    let ip = match url.host()? {
        url::Host::Ipv4(v4) => IpAddr::V4(v4),
        url::Host::Ipv6(v6) => IpAddr::V6(v6),
        url::Host::Domain(d) if d.eq_ignore_ascii_case("localhost") => {
            IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)
        }
        url::Host::Domain(_) => return None,
    };
    is_private(ip).then(|| Refused {
        host: url.host_str().unwrap_or_default().to_owned(),
        addr: ip,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_ranges() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "::1",
            "fe80::1",
            "fd00::1",
            "0.0.0.0",
            "100.64.0.1",
            "::ffff:127.0.0.1",
            // Regression: IPv4 inside IPv6 reached private IPv4 addresses.
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
            "64:ff9b:1::c0a8:101",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
            "::127.0.0.1",
        ] {
            assert!(is_private(private.parse().unwrap()), "{private}");
        }
        for public in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700::1111",
            "64:ff9b::5db8:d822",
            "2002:5db8:d822::1",
        ] {
            assert!(!is_private(public.parse().unwrap()), "{public}");
        }
    }

    /// Every entry of the registries, at its first and last address, and, where the next
    /// block is ordinary unicast, the addresses just outside. Parsed only: nothing is reached.
    #[test]
    fn every_special_purpose_entry_is_refused() {
        // Regression: multicast, the reserved block and benchmarking were let through.
        for special in [
            "0.255.255.255",
            "100.127.255.255",
            "127.255.255.255",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.0.9",
            "192.0.0.170",
            "192.31.196.1",
            "192.52.193.1",
            "192.88.99.1",
            "192.175.48.1",
            "198.18.0.0",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.200",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "100::1",
            "100:0:0:1::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:1::1",
            "2001:2::1",
            "2001:3::1",
            "2001:4:112::1",
            "2001:10::1",
            "2001:20::1",
            "2001:1ff:ffff::1",
            "2001:db8::1",
            "2620:4f:8000::1",
            "3fff::1",
            "5f00::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            // The forms that carry IPv4, carrying special IPv4 addresses.
            "::ffff:224.0.0.1",
            "::ffff:198.18.0.1",
            "64:ff9b::f000:1",
            "2002:c612:1::",
        ] {
            assert!(is_private(special.parse().unwrap()), "{special}");
        }
        for outside in [
            "1.0.0.1",
            "11.0.0.1",
            "100.128.0.1",
            "172.32.0.1",
            "192.0.3.1",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.254",
            "2001:200::1",
            "2001:dc8::1",
            "2620:4f:8001::1",
            "3000::1",
        ] {
            assert!(!is_private(outside.parse().unwrap()), "{outside}");
        }
    }
}
