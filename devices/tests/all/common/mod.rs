//! Shared helpers of the ds-devices integration tests: a test that needs a tool skips with a
//! printed reason when run by hand without it, and fails under `CI=true`.

/// `found`, or (when not) prints why the test skips and returns false, or panics under `CI=true`.
pub fn require(found: bool, why: &str) -> bool {
    if !found {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true and {why}");
        }
        eprintln!("skipped: {why}");
    }
    found
}
