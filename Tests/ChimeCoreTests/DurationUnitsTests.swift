import Dispatch
import Testing

@testable import ChimeCore

/// `Duration`'s conversions: each unit with the rounding its callers rely on.
@Suite struct DurationUnitsTests {
    @Test(arguments: [
        (Duration.seconds(1) + .nanoseconds(1_500), 1_000_001, 1_000_001_500, 1000, 1001),
        (.milliseconds(1), 1000, 1_000_000, 1, 1),
        (.nanoseconds(999), 0, 999, 0, 1),
        (.zero, 0, 0, 0, 0),
        (.seconds(-2) - .nanoseconds(1_999), -2_000_001, -2_000_001_999, -2000, -2000),
    ])
    func unitsTruncateOrRoundAsSaid(
        duration: Duration, micro: Int64, nano: Int64, milli: Int64, milliUp: Int64
    ) {
        #expect(duration.wholeMicroseconds == micro)
        #expect(duration.wholeNanoseconds == nano)
        #expect(duration.wholeMilliseconds == milli)
        #expect(duration.millisecondsRoundedUp == milliUp)
    }

    @Test func nanosecondsSaturateBeyond292Years() {
        #expect(Duration.seconds(Int64.max / 2).wholeNanoseconds == .max)
        #expect(Duration.seconds(-(Int64.max / 2)).wholeNanoseconds == .min)
        #expect(Duration.seconds(9_000_000_000).wholeNanoseconds == 9_000_000_000 * 1_000_000_000)
    }

    @Test func timeIntervalKeepsTheFraction() {
        #expect((Duration.seconds(90) + .milliseconds(250)).timeInterval == 90.25)
    }

    @Test func dispatchIntervalsAreWholeNanoseconds() {
        #expect((Duration.seconds(1) + .nanoseconds(1_500)).dispatchInterval == .nanoseconds(1_000_001_500))
        #expect(Duration.zero.dispatchInterval == .nanoseconds(0))
    }
}
