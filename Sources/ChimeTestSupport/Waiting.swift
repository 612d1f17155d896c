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

/// `waitFor` for a condition that asks over the bus: looks every 20 ms until it holds (an error counts as not yet),
/// for at most `timeout` seconds of the monotonic clock.
public func eventually(timeout: TimeInterval, _ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while (try? await condition()) != true {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}
