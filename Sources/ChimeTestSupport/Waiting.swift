import Foundation

/// Waits until `condition` holds, looking every 20 ms, for at most `timeout` seconds of the monotonic clock (the
/// tests that step the wall clock wait here too): for what a real process does that the test has no event for.
/// Returns whether it came to hold.
public func waitFor(_ condition: () -> Bool, timeout: TimeInterval) -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        usleep(20_000)
    }
    return true
}
