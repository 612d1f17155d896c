import Testing

@testable import ChimeCore

/// Calendar events, case by case, with the answers `systemd-analyze calendar` (systemd 252) printed for them.
///
/// Times are UTC; systemd prints whole seconds, so the expected elapses are whole seconds too.
@Suite struct CalendarSpecTests {
    /// A spec asked for its next elapses in a local zone from a base time.
    struct ElapseCase: Sendable, CustomTestStringConvertible {
        let spec: String
        let zone: String
        let base: String
        /// Empty when systemd prints "never".
        let elapses: [String]
        /// What the case guards against.
        let note: String

        init(_ spec: String, in zone: String, from base: String, _ elapses: [String], _ note: String = "") {
            self.spec = spec
            self.zone = zone
            self.base = base
            self.elapses = elapses
            self.note = note
        }

        var testDescription: String { "\(spec) [\(zone) from \(base)]" }
    }

    /// The first `count` elapses after `base`, in microseconds, stopping at "never".
    static func elapses(of spec: CalendarSpec, zone: ZoneRules, after base: Int64, count: Int) -> [Int64] {
        var result: [Int64] = []
        var after = base
        while result.count < count, let next = spec.nextElapse(afterMicroseconds: after, localZone: zone) {
            result.append(next)
            after = next
        }
        return result
    }

    static func check(_ example: ElapseCase) throws {
        let zone = try ZoneDatabase.system.rules(named: example.zone)
        let spec = try CalendarSpec(example.spec, localZone: zone)
        let base = try #require(CalendarOracleTests.microseconds(iso: example.base))
        let expected = example.elapses.compactMap(CalendarOracleTests.microseconds(iso:))
        try #require(expected.count == example.elapses.count, "unreadable time in the table")
        let mine = elapses(of: spec, zone: zone, after: base, count: max(expected.count, 1))
        #expect(mine.map { $0 / 1_000_000 * 1_000_000 } == expected, "\(example.note)")
    }

    /// Disagreements with systemd that differential fuzzing found, one case per class, kept fixed.
    static let fuzzRegressions: [ElapseCase] = [
        ElapseCase(
            "*-9-21", in: "Pacific/Kiritimati", from: "1979-09-21T10:40:00Z",
            ["1980-09-21T10:00:00Z", "1981-09-21T10:00:00Z", "1982-09-21T10:00:00Z"],
            "a gap between two standard offsets (1979-10-01 00:00..00:40 is skipped) must not send mktime backwards"),
        ElapseCase(
            "*-9-21 Pacific/Kiritimati", in: "Pacific/Tahiti", from: "1979-09-21T10:40:00Z",
            ["1980-09-21T10:00:00Z", "1981-09-21T10:00:00Z", "1982-09-21T10:00:00Z"],
            "the same in a named zone"),
        ElapseCase(
            "12:00 right/UTC", in: "UTC", from: "2026-01-01T00:00:00Z",
            ["2026-01-01T12:00:27Z", "2026-01-02T12:00:27Z"],
            "right/ zones count leap seconds: their noon is 27 s after UTC noon"),
        ElapseCase(
            "2016-12-31 23:59:59 right/UTC", in: "UTC", from: "2016-12-31T00:00:00Z", ["2017-01-01T00:00:25Z"],
            "the second before the leap second 2016-12-31 23:59:60"),
        ElapseCase(
            "@4908445016 right/Europe/Berlin", in: "Europe/Berlin", from: "2026-06-15T10:20:30.250000Z",
            ["2125-07-17T16:57:23Z"],
            "@EPOCH is UTC, but converted with timegm in the named zone, which counts its leap seconds"),
        ElapseCase(
            "12:00 +0630", in: "Asia/Kolkata", from: "2026-03-28T20:00:00Z", [],
            "tzset names Kolkata's daylight time +0630 (1942-45), so the spec is valid; it never elapses"),
        ElapseCase(
            "12:00 JDT", in: "Asia/Tokyo", from: "2026-03-28T20:00:00Z", [], "Tokyo's daylight time of 1948-51"),
        ElapseCase(
            "12:00 +00", in: "Africa/Casablanca", from: "2026-01-28T20:00:00Z", [],
            "Casablanca's footer has no DST, its table has +00 (isDST) for Ramadan"),
    ]

    /// Normalised forms that depend on the local zone.
    static let zonedForms: [(spec: String, zone: String, normalized: String)] = [
        // gmtime counts the leap seconds of a right/ local zone.
        ("@1774728000", "right/Europe/Berlin", "2026-03-28 19:59:33 UTC"),
        ("@1774728000", "Europe/Berlin", "2026-03-28 20:00:00 UTC"),
        // The local zone's tzname, printed as tzset spells it.
        ("12:00 +0630", "Asia/Kolkata", "*-*-* 12:00:00 +0630"),
        ("12:00 jdt", "Asia/Tokyo", "*-*-* 12:00:00 JDT"),
        ("12:00 +00", "Africa/Casablanca", "*-*-* 12:00:00 +00"),
        ("12:00 edt", "America/New_York", "*-*-* 12:00:00 EDT"),
        // Not a local abbreviation there: the zone file CET.
        ("12:00 CET", "America/New_York", "*-*-* 12:00:00 CET"),
    ]

    @Test(arguments: zonedForms)
    func zonedForm(spec: String, zone: String, normalized: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        #expect(try CalendarSpec(spec, localZone: rules).description == normalized)
    }

    @Test(arguments: fuzzRegressions)
    func fuzzRegression(_ example: ElapseCase) throws {
        try Self.check(example)
    }
}
