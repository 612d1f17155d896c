import Dispatch

/// `Duration` in the units that system calls, timers and Foundation take: every conversion in one place, each with
/// its rounding said.
extension Duration {
    /// Whole microseconds, truncated toward zero.
    public var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// Whole nanoseconds, truncated toward zero; beyond what 64 bits hold (292 years), the nearest limit.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow && !sumOverflow else { return seconds < 0 ? .min : .max }
        return sum
    }

    /// Whole milliseconds, truncated toward zero.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Milliseconds rounded up, for a positive duration: a wait of this many milliseconds does not end before it.
    public var millisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// A dispatch interval of whole nanoseconds, for `DispatchTime` deadlines.
    public var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(wholeNanoseconds))
    }

    /// The nearest whole second (a half rounded up), for saying how long something took (`2min 5s`, not
    /// `2min 4.6187s`).
    public var roundedToSeconds: Duration {
        .seconds(CivilTime.floorDivide64(wholeMilliseconds + 500, 1000).quotient)
    }

    /// Seconds as a floating-point number, Foundation's `TimeInterval`.
    public var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
