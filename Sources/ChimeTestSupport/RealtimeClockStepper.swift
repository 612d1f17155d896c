import ChimeCore
import ChimePlatform
import Glibc

/// The system's wall clock (`CLOCK_REALTIME`), stepped by a test and put back exactly.
///
/// Restoring does not set back what was read before the first step (time went on meanwhile): it sets the wall clock
/// to the monotonic clock plus the offset between the two taken at the start, which stepping the wall clock does
/// not change. Only a test that is alone on the machine's clock may step it: the suites that do are serialized.
public final class RealtimeClockStepper {
    /// Nanoseconds from `CLOCK_MONOTONIC` to `CLOCK_REALTIME` before the first step.
    private let offset: Int64
    private var stepped = false

    /// Why the clock cannot be stepped here, or `nil` when it can: that needs `CAP_SYS_TIME`.
    public static var unavailableReason: String? {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        guard clock_settime(CLOCK_REALTIME, &now) == 0 else {
            return "setting CLOCK_REALTIME needs root with CAP_SYS_TIME (\(Errno.current))"
        }
        return nil
    }

    public init() {
        offset = Self.nanoseconds(CLOCK_REALTIME) - Self.nanoseconds(CLOCK_MONOTONIC)
    }

    deinit {
        try? restore()
    }

    /// Moves the wall clock by `step`, forward or back.
    public func step(by step: Duration) throws {
        stepped = true
        try set(Self.nanoseconds(CLOCK_REALTIME) + step.wholeNanoseconds)
    }

    /// Puts the wall clock back where it would be had it never been stepped.
    public func restore() throws {
        guard stepped else { return }
        try set(Self.nanoseconds(CLOCK_MONOTONIC) + offset)
        stepped = false
    }

    private func set(_ nanoseconds: Int64) throws {
        var time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        guard clock_settime(CLOCK_REALTIME, &time) == 0 else {
            throw Errno.current
        }
    }

    private static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
