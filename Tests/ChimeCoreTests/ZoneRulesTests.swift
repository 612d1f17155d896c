import ChimePlatform
import Foundation
import Glibc
import Testing

@testable import ChimeCore

/// `ZoneRules` against glibc's own `localtime_r`/`mktime` on the same tzdata: the reference systemd uses.
@Suite(.serialized) struct ZoneRulesTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Tokyo", "Asia/Kolkata", "UTC",
        "America/Sao_Paulo", "Pacific/Chatham", "Europe/Dublin", "Africa/Casablanca", "America/St_Johns",
        "right/UTC", "right/Europe/Berlin",
    ]

    /// Runs `body` with the process's `TZ` set to `zone` (glibc's functions read it).
    private func withProcessZone<T>(_ zone: String, _ body: () -> T) -> T {
        let saved = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1)
        tzset()
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        return body()
    }

    /// A zone of its own object for a thread gives every instant what the zone it was made from gives.
    @Test(arguments: zones)
    func anUnsharedZoneHasTheSameRules(zone: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        let unshared = rules.unshared()
        #expect(!unshared.isSame(as: rules))
        #expect(unshared.hasSameRules(as: rules) && rules.hasSameRules(as: unshared))
        #expect(unshared.name == rules.name)
        for instant in stride(from: Int64(-2_000_000_000), through: 4_000_000_000, by: 7_777_777) {
            #expect(unshared.utcOffset(at: instant) == rules.utcOffset(at: instant))
            #expect(unshared.localTime(at: instant) == rules.localTime(at: instant))
        }
    }

    @Test(arguments: zones)
    func localTimeMatchesGlibc(zone: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        withProcessZone(zone) {
            // Every 7 hours 13 minutes from 1960 to 2120, plus the seconds around each transition of the table.
            var instants: [Int64] = Array(stride(from: Int64(-315_619_200), to: 4_733_510_400, by: 25_980))
            for transition in rules.transitions where transition < 4_733_510_400 {
                instants += [transition - 1, transition, transition + 1]
            }
            for leap in rules.leapSeconds {
                instants += [leap.instant - 1, leap.instant, leap.instant + 1]
            }
            var mismatches: [String] = []
            for instant in instants {
                var t = time_t(instant)
                var expected = tm()
                localtime_r(&t, &expected)
                let got = rules.localTime(at: instant)
                let same =
                    got.year == Int(expected.tm_year) + 1900 && got.month == Int(expected.tm_mon) + 1
                    && got.day == Int(expected.tm_mday) && got.hour == Int(expected.tm_hour)
                    && got.minute == Int(expected.tm_min) && got.second == Int(expected.tm_sec)
                    && got.isDST == Int(expected.tm_isdst) && got.utcOffset == expected.tm_gmtoff
                    && got.weekday == Int(expected.tm_wday)
                    && got.abbreviation == String(cString: expected.tm_zone)
                if !same && mismatches.count < 5 { mismatches.append("\(instant): \(got) vs \(expected)") }
            }
            #expect(mismatches.isEmpty, "\(zone): \(mismatches)")
        }
    }

    @Test(arguments: zones + ["Pacific/Kiritimati", "America/Argentina/Catamarca", "Asia/Colombo", "Pacific/Apia"])
    func makeTimeMatchesGlibc(zone: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        withProcessZone(zone) {
            var mismatches: [String] = []
            // glibc remembers the offset of its last successful conversion process-wide; start both from the same.
            var hint = 0
            var first = rules.localTime(at: 0)
            _ = rules.makeTime(&first, offsetHint: &hint)
            var primer = tm()
            var epoch = time_t(0)
            localtime_r(&epoch, &primer)
            _ = mktime(&primer)
            // Each quarter hour of the hours around each transition, with each isDST request, in a chained order
            // so that glibc's remembered offset and ours evolve alike: gaps between two standard times (Kiritimati
            // 1979, Catamarca 2004), repeated hours of one flavour (Colombo 1996), skipped days (Apia 2011).
            // Around leap seconds, each second, with the wall time shifted by -1...1 seconds (so 23:59:60 too).
            var points: [(instant: Int64, shift: Int)] = []
            for transition in rules.transitions where transition < 2_524_608_000 {
                for step in stride(from: Int64(-3 * 3_600), through: 3 * 3_600, by: 900) {
                    points.append((transition + step, 30 * 60))
                }
            }
            for leap in rules.leapSeconds {
                for step in Int64(-2)...2 {
                    points += [(leap.instant + step, -1), (leap.instant + step, 0), (leap.instant + step, 1)]
                }
            }
            for (instant, shift) in points {
                for isDST in [-1, 0, 1] {
                    let base = rules.localTime(at: instant)
                    var wanted = LocalDateTime(
                        year: base.year, month: base.month, day: base.day, hour: base.hour, minute: base.minute,
                        second: base.second + shift, isDST: isDST)
                    var c = tm()
                    c.tm_year = Int32(wanted.year - 1900)
                    c.tm_mon = Int32(wanted.month - 1)
                    c.tm_mday = Int32(wanted.day)
                    c.tm_hour = Int32(wanted.hour)
                    c.tm_min = Int32(wanted.minute)
                    c.tm_sec = Int32(wanted.second)
                    c.tm_isdst = Int32(isDST)
                    errno = 0
                    let result = mktime(&c)
                    // mktime fails with -1 and EOVERFLOW (a valid -1 leaves errno alone).
                    let expected = result == -1 && errno != 0 ? nil : Int64(result)
                    let asked = wanted
                    let got = rules.makeTime(&wanted, offsetHint: &hint)
                    let sameFields =
                        got == nil
                        || (wanted.day == Int(c.tm_mday) && wanted.hour == Int(c.tm_hour)
                            && wanted.minute == Int(c.tm_min) && wanted.second == Int(c.tm_sec)
                            && wanted.isDST == Int(c.tm_isdst) && wanted.utcOffset == c.tm_gmtoff)
                    if (got != expected || !sameFields) && mismatches.count < 5 {
                        let mine = got.map(String.init) ?? "fails"
                        mismatches.append("\(asked): \(mine) vs \(expected.map(String.init) ?? "fails")")
                    }
                }
            }
            #expect(mismatches.isEmpty, "\(zone): \(mismatches)")
        }
    }

    /// The abbreviations a calendar event or timestamp may end with are glibc's `tzname` after `tzset()`.
    @Test(arguments: zones + ["Asia/Tokyo", "Europe/Moscow", "America/Sao_Paulo", "Antarctica/Troll", "Etc/GMT-3"])
    func abbreviationsMatchGlibcTzname(zone: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        // glibc's `tzname` array, reached through the dynamic linker: Swift 6 forbids touching the C global.
        let symbol = try #require(dlsym(nil, "tzname")).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
        let names = withProcessZone(zone) { (String(cString: symbol[0]!), String(cString: symbol[1]!)) }
        #expect(rules.standardAbbreviation == names.0)
        #expect(rules.daylightAbbreviation == names.1)
    }

    /// `tzname` as a fresh process sees it after `tzset(3)`: the latest name of each flavour in the transition
    /// table, even where that flavour has not been used for decades (values printed by glibc 2.36).
    @Test(arguments: [
        ("Europe/Berlin", "CET", "CEST"), ("America/New_York", "EST", "EDT"), ("Australia/Lord_Howe", "+1030", "+11"),
        ("Asia/Tokyo", "JST", "JDT"), ("Asia/Kolkata", "IST", "+0630"), ("Africa/Casablanca", "+01", "+00"),
        ("Europe/Dublin", "IST", "GMT"), ("UTC", "UTC", "UTC"), ("Etc/GMT+5", "-05", "-05"),
    ])
    func abbreviationsAreTzname(zone: String, standard: String, daylight: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        #expect(rules.standardAbbreviation == standard)
        #expect(rules.daylightAbbreviation == daylight)
        #expect(ZoneRules.utc.daylightAbbreviation == "UTC")
    }

    @Test(arguments: [
        ("Europe/Berlin", true), ("UTC", true), ("GMT", true), ("Etc/GMT+5", true), ("Mars/Base", false),
        ("/etc/localtime", false), ("Europe//Berlin", false), ("Europe/Berlin/", false), ("../etc/passwd", false),
        ("Europe", false), ("", false),
    ])
    func zoneNames(name: String, valid: Bool) {
        #expect(ZoneDatabase.system.isValidName(name) == valid)
    }

    @Test func posixRuleMatchesTheFileItCameFrom() throws {
        let file = try ZoneDatabase.system.rules(named: "Europe/Berlin")
        let rule = try ZoneRules(posixRule: "CET-1CEST,M3.5.0,M10.5.0/3", zones: .system)
        for instant in stride(from: Int64(1_000_000_000), to: 4_000_000_000, by: 86_399) {
            #expect(file.localTime(at: instant) == rule.localTime(at: instant))
        }
    }

    @Test(arguments: ["", "C", "CET", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "<+03", "X-1"])
    func malformedRulesAreRejected(rule: String) {
        #expect(throws: ZoneError.self) { try ZoneRules(posixRule: rule, zones: .system) }
    }
}
