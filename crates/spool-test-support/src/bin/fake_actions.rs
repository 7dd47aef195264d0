//! A loopback server that plays GitHub's Actions API (see `spool_test_support::actions`), for
//! end-to-end tests of `spool ci-log`: run 7 of `acme/widgets`, re-run by `POST /_fake/rerun/7`.
//! Prints its base URL on stderr and serves until killed.

fn main() {
    let addr = spool_test_support::actions::start(spool_test_support::actions::sample());
    eprintln!("fake actions at http://{addr}");
    loop {
        std::thread::park();
    }
}
