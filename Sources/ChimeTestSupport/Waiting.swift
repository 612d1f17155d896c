import Foundation

/// Waits until `condition` holds, looking every 20 ms, for at most `timeout` seconds: for what a real process does
/// that the test has no event for. Returns whether it came to hold.
public func waitFor(_ condition: () -> Bool, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(20_000)
    }
    return true
}
