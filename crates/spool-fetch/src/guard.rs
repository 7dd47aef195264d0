//! Which addresses a fetch may reach: public ones only, unless private networks are allowed.
//! Checked after DNS resolution and on every redirect, so a public name that resolves to (or
//! redirects to) a private address is refused too.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

/// The error a refused address raises inside the HTTP client (found again in its source chain).
#[derive(Debug, thiserror::Error)]
#[error("`{host}` resolves to {addr}, a private, loopback or link-local address")]
pub struct Refused {
    pub host: String,
    pub addr: IpAddr,
}

/// True for loopback, private, link-local, unique-local, unspecified and similar addresses.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_documentation()
                // 100.64.0.0/10, carrier-grade NAT
                || (v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64)
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link local
                || v6.to_ipv4_mapped().is_some_and(|v4| is_private(IpAddr::V4(v4)))
                // IPv4 carried inside IPv6 reaches the IPv4 address: judge that one.
                || embedded_v4(&s).is_some_and(|v4| is_private(IpAddr::V4(v4)))
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
            // Port 0: the client puts in the URL's port.
            let addrs: Vec<SocketAddr> = (host.as_str(), 0).to_socket_addrs()?.collect();
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
}
