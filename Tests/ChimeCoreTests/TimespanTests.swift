import Testing

@testable import ChimeCore

/// Expected values are what `systemd-analyze timespan` of systemd 252 printed for the same input ("μs:" and
/// "Human:" lines, or "Invalid argument" / "Numerical result out of range"). The columns of errors are chime's own.
@Suite struct TimespanTests {
    static let accepted: [(input: String, microseconds: UInt64, human: String)] = [
        ("15min", 900_000_000, "15min"),
        ("1h 30min", 5_400_000_000, "1h 30min"),
        ("1h30min", 5_400_000_000, "1h 30min"),
        ("2d", 172_800_000_000, "2d"),
        ("500ms", 500_000, "500ms"),
        ("1.5h", 5_400_000_000, "1h 30min"),
        ("90", 90_000_000, "1min 30s"),
        ("0", 0, "0"),
        ("+5", 5_000_000, "5s"),
        (".5", 500_000, "500ms"),
        ("00005", 5_000_000, "5s"),
        ("010", 10_000_000, "10s"),
        ("1 2", 3_000_000, "3s"),
        ("1h 1h", 7_200_000_000, "2h"),
        (" 5 min", 300_000_000, "5min"),
        ("5 min ", 300_000_000, "5min"),
        ("5 min  3 s", 303_000_000, "5min 3s"),
        ("5min5", 305_000_000, "5min 5s"),
        ("5minutes5", 305_000_000, "5min 5s"),
        ("5hours1", 18_001_000_000, "5h 1s"),
        ("1.5 h", 5_400_000_000, "1h 30min"),
        ("5 .5", 5_500_000, "5.500000s"),
        ("12.34s.56", 12_900_000, "12.900000s"),
        ("1.5s.5", 2_000_000, "2s"),
        ("5m.5", 300_500_000, "5min 500ms"),
        ("1M1m", 2_629_860_000_000, "1month 1min"),
        ("infinity", 18_446_744_073_709_551_615, "infinity"),
        (" infinity ", 18_446_744_073_709_551_615, "infinity"),
        ("1us", 1, "1us"),
        ("1usec", 1, "1us"),
        ("1µs", 1, "1us"),
        ("1μs", 1, "1us"),
        ("1ms", 1000, "1ms"),
        ("1msec", 1000, "1ms"),
        ("1s", 1_000_000, "1s"),
        ("1sec", 1_000_000, "1s"),
        ("1second", 1_000_000, "1s"),
        ("1seconds", 1_000_000, "1s"),
        ("1m", 60_000_000, "1min"),
        ("1min", 60_000_000, "1min"),
        ("1minute", 60_000_000, "1min"),
        ("1minutes", 60_000_000, "1min"),
        ("1h", 3_600_000_000, "1h"),
        ("1hr", 3_600_000_000, "1h"),
        ("1hour", 3_600_000_000, "1h"),
        ("1hours", 3_600_000_000, "1h"),
        ("1d", 86_400_000_000, "1d"),
        ("1day", 86_400_000_000, "1d"),
        ("1days", 86_400_000_000, "1d"),
        ("1w", 604_800_000_000, "1w"),
        ("1week", 604_800_000_000, "1w"),
        ("1weeks", 604_800_000_000, "1w"),
        ("1M", 2_629_800_000_000, "1month"),
        ("1month", 2_629_800_000_000, "1month"),
        ("1months", 2_629_800_000_000, "1month"),
        ("1y", 31_557_600_000_000, "1y"),
        ("1year", 31_557_600_000_000, "1y"),
        ("1years", 31_557_600_000_000, "1y"),
        ("5y 5M 5w 5d", 174_393_000_000_000, "5y 6month 1w 2d 13h 30min"),
        ("0.5us", 0, "0"),
        ("1.5us", 1, "1us"),
        ("1.999us", 1, "1us"),
        ("0.1ms", 100, "100us"),
        ("0.0001ms", 0, "0"),
        ("1.123456789ms", 1123, "1.123ms"),
        ("0.0000015s", 1, "1us"),
        ("1.9999999s", 1_999_999, "1.999999s"),
        ("1.99999999999999999999999s", 1_999_999, "1.999999s"),
        ("0.5", 500_000, "500ms"),
        ("3.5M", 9_204_300_000_000, "3month 2w 1d 5h 15min"),
        ("1.5y", 47_336_400_000_000, "1y 6month"),
        ("0.1M", 262_980_000_000, "3d 1h 3min"),
        ("9223372036854775807us", 9_223_372_036_854_775_807, "292271y 1w 1d 10h 54.775807s"),
        (
            "9223372036854775807us 9223372036854775807us", 18_446_744_073_709_551_614,
            "584542y 2w 2d 20h 1min 49.551614s"
        ),
        ("584541y", 18_446_711_061_600_000_000, "584541y"),
        ("584541y 11M", 18_446_739_989_400_000_000, "584541y 11month"),
        ("1y1y1y", 94_672_800_000_000, "3y"),
        ("1y 1M 1w 1d 1h 1min 1s 1ms 1us", 34_882_261_001_001, "1y 1month 1w 1d 1h 1min 1.001001s"),
        ("61.5s", 61_500_000, "1min 1.500000s"),
        ("60000001us", 60_000_001, "1min 1us"),
        ("1001us", 1001, "1.001ms"),
        ("59.999999s", 59_999_999, "59.999999s"),
        ("12345678901234567us", 12_345_678_901_234_567, "391y 2month 2w 2d 4h 15min 1.234567s"),
        ("5000000000000000000us", 5_000_000_000_000_000_000, "158440y 5month 1w 1d 4h 23min 20s"),
    ]

    @Test(arguments: accepted)
    func parsesAsSystemdDoes(input: String, microseconds: UInt64, human: String) throws {
        let span = try Timespan.parse(input)
        #expect(span.microseconds == microseconds)
        #expect(span.description == human)
    }

    /// Rejections; `.negative` and `.overflow` are the ones systemd reports as "Numerical result out of range".
    static let rejected: [(input: String, reason: TimeParseError.Reason, column: Int)] = [
        ("-5", .negative, 1),
        ("-0", .negative, 1),
        ("- 5", .negative, 1),
        ("+ 5", .expectedNumber, 1),
        ("++5", .expectedNumber, 1),
        ("+.5", .expectedNumber, 1),
        ("5 -5", .negative, 3),
        ("5min,", .expectedNumber, 5),
        ("5.5.5", .unknownUnit, 4),
        ("5.", .missingFractionDigits, 3),
        ("5. 5", .missingFractionDigits, 3),
        ("5 . 5", .missingFractionDigits, 4),
        (".", .missingFractionDigits, 2),
        (". 5", .missingFractionDigits, 2),
        ("0.", .missingFractionDigits, 3),
        ("1e3", .unknownUnit, 2),
        ("0x10", .unknownUnit, 2),
        ("5_000", .unknownUnit, 2),
        ("1,5h", .unknownUnit, 2),
        ("5S", .unknownUnit, 2),
        ("5 H", .unknownUnit, 3),
        ("5mins", .unknownUnit, 2),
        ("5mi", .unknownUnit, 2),
        ("5 s s", .unknownUnit, 5),
        ("s", .expectedNumber, 1),
        ("min", .expectedNumber, 1),
        ("5 infinity", .unknownUnit, 3),
        ("infinity 5", .trailingText, 10),
        ("infinityx", .trailingText, 9),
        ("Infinity", .expectedNumber, 1),
        ("inf", .expectedNumber, 1),
        ("1µsec", .unknownUnit, 2),
        ("1msecs", .unknownUnit, 2),
        ("1secs", .unknownUnit, 2),
        ("1hrs", .unknownUnit, 2),
        ("1yr", .unknownUnit, 2),
        ("1wk", .unknownUnit, 2),
        ("1Ms", .unknownUnit, 2),
        ("1mo", .unknownUnit, 2),
        ("18446744073709551615us", .overflow, 1),
        ("9223372036854775808us", .overflow, 1),
        ("9223372036854775807us 9223372036854775807us 1us", .overflow, 45),
        ("99999999999999999999", .overflow, 1),
        ("99999999999999999999999.", .overflow, 1),
        ("584542y", .overflow, 1),
        ("213503983d", .overflow, 1),
        ("1000000y.", .overflow, 1),
        ("", .empty, 1),
        (" ", .empty, 2),
        ("   ", .empty, 4),
        ("\t", .empty, 2),
    ]

    @Test(arguments: rejected)
    func rejectsAsSystemdDoes(input: String, reason: TimeParseError.Reason, column: Int) {
        #expect(throws: TimeParseError(input: input, reason: reason, column: column)) {
            try Timespan.parse(input)
        }
    }

    /// `format_timespan()` for values no short input produces, from systemd 252.
    @Test(
        arguments: [
            (1, "1us"), (999, "999us"), (1_000, "1ms"), (1_500, "1.500ms"), (999_999, "999.999ms"), (1_000_000, "1s"),
            (1_000_001, "1.000001s"), (59_999_999, "59.999999s"), (60_000_000, "1min"), (60_000_001, "1min 1us"),
            (3_599_999_999, "59min 59.999999s"), (3_600_000_001, "1h 1us"), (86_399_999_999, "23h 59min 59.999999s"),
            (86_400_000_000, "1d"), (604_800_000_001, "1w 1us"), (2_629_800_000_000, "1month"),
            (2_629_800_000_001, "1month 1us"), (31_557_600_000_000, "1y"), (31_557_600_000_001, "1y 1us"),
            (18_446_744_073_709_551_614, "584542y 2w 2d 20h 1min 49.551614s"), (18_446_744_073_709_551_615, "infinity"),
        ] as [(UInt64, String)])
    func formatsAsSystemdDoes(microseconds: UInt64, human: String) {
        #expect(Timespan(microseconds: microseconds).description == human)
    }

    @Test func errorKindFollowsSystemdErrno() throws {
        let negative = try #require(throws: TimeParseError.self) { try Timespan.parse("5 -5") }
        #expect(negative.isOutOfRange)
        let garbage = try #require(throws: TimeParseError.self) { try Timespan.parse("5mins") }
        #expect(!garbage.isOutOfRange)
        #expect(garbage.description == "column 2: unknown time unit")
    }

    @Test(
        arguments: [
            (Duration.zero, 0), (.seconds(90), 90_000_000), (.milliseconds(1_500), 1_500_000), (.nanoseconds(1_999), 1),
            (.seconds(18_446_744_073_709), 18_446_744_073_709_000_000),
        ] as [(Duration, UInt64)])
    func convertsFromDuration(duration: Duration, microseconds: UInt64) throws {
        let span = try #require(Timespan(duration))
        #expect(span.microseconds == microseconds)
    }

    @Test func convertsToDuration() {
        #expect(Timespan(microseconds: 5_400_000_000).duration == .seconds(5_400))
        #expect(Timespan(microseconds: 1_500).duration == .microseconds(1_500))
        #expect(
            Timespan(microseconds: 18_446_744_073_709_551_614).duration
                == .seconds(18_446_744_073_709) + .microseconds(551_614))
        #expect(Timespan.infinity.duration == nil)
    }

    @Test func durationConversionRejectsWhatSystemdCannotHold() {
        #expect(Timespan(.seconds(-1)) == nil)
        #expect(Timespan(.microseconds(-1)) == nil)
        #expect(Timespan(.seconds(18_446_744_073_710)) == nil)
    }
}
