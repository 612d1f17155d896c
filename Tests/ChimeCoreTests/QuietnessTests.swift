import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

/// Quiet hours, the user's switch and the desktop's do-not-disturb decide whether it is quiet: windows to the
/// microsecond, across DST changes, merged when they overlap, and when to look again.
@Suite struct QuietnessTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")

    static func window(_ calendar: String, hours: Double, zone: String? = nil) -> QuietHours.Window {
        let rules = zone.map { try! ZoneDatabase.system.rules(named: $0) }
        return QuietHours.Window(
            calendar: try! CalendarSpec(calendar, localZone: rules ?? berlin, zones: .system),
            length: Int64(hours * 3_600_000_000), zone: rules, text: calendar)
    }

    static func at(_ text: String) -> Date { TestDate.timestamp(text) }

    static let nightly = QuietHours([window("*-*-* 22:00", hours: 9)])

    static func quietness(
        _ now: String, _ hours: QuietHours = nightly, switch quietSwitch: QuietSwitch? = nil, desktop: String? = nil
    ) -> Quietness {
        Quietness(at: at(now), hours: hours, quietSwitch: quietSwitch, desktop: desktop, systemZone: berlin)
    }

    @Test(arguments: [
        // Winter (CET, UTC+1): 22:00 to 07:00 local.
        ("2026-12-01 20:59:59.999999 UTC", false, "2026-12-01 21:00 UTC"),
        ("2026-12-01 21:00 UTC", true, "2026-12-02 06:00 UTC"),
        ("2026-12-02 05:59:59.999999 UTC", true, "2026-12-02 06:00 UTC"),
        ("2026-12-02 06:00 UTC", false, "2026-12-02 21:00 UTC"),
        // The night the clocks go back (CEST to CET at 03:00): nine hours from 22:00 CEST end at 06:00 CET.
        ("2026-10-24 20:00 UTC", true, "2026-10-25 05:00 UTC"),
        ("2026-10-25 05:00 UTC", false, "2026-10-25 21:00 UTC"),
        // The night they go forward (CET to CEST at 02:00): nine hours from 22:00 CET end at 08:00 CEST.
        ("2026-03-28 21:00 UTC", true, "2026-03-29 06:00 UTC"),
        ("2026-03-29 05:59 UTC", true, "2026-03-29 06:00 UTC"),
    ])
    func aNightlyWindowIsQuietFromItsStartForItsLength(now: String, isQuiet: Bool, nextChange: String) {
        let quietness = Self.quietness(now)
        #expect(quietness.isQuiet == isQuiet)
        #expect(quietness.nextChange == Self.at(nextChange))
        #expect(quietness.expectedEnd == (isQuiet ? Self.at(nextChange) : nil))
    }

    @Test func windowsThatOverlapOrTouchMakeOneStretch() {
        let hours = QuietHours([
            Self.window("*-*-* 22:00", hours: 9), Self.window("*-*-* 07:00", hours: 1),
            Self.window("Sat *-*-* 08:00", hours: 4),
        ])
        let friday = hours.stretch(containing: Self.at("2026-12-04 23:00 UTC"), systemZone: Self.berlin)
        // Friday 22:00 to Saturday 07:00, then 07:00 to 08:00, then 08:00 to 12:00 (local).
        #expect(friday == Self.at("2026-12-04 21:00 UTC")..<Self.at("2026-12-05 11:00 UTC"))
        // Seen from inside the last window, the stretch still begins on Friday.
        #expect(
            hours.stretch(containing: Self.at("2026-12-05 10:00 UTC"), systemZone: Self.berlin)?.lowerBound
                == Self.at("2026-12-04 21:00 UTC"))
        let tuesday = hours.stretch(containing: Self.at("2026-12-01 21:30 UTC"), systemZone: Self.berlin)
        #expect(tuesday == Self.at("2026-12-01 21:00 UTC")..<Self.at("2026-12-02 07:00 UTC"))
        #expect(hours.stretch(containing: Self.at("2026-12-02 07:00 UTC"), systemZone: Self.berlin) == nil)
    }

    @Test func aWindowReadsItsWallTimesInItsOwnZone() {
        let hours = QuietHours([Self.window("*-*-* 22:00", hours: 1.5, zone: "Asia/Kolkata")])
        // 22:00 IST is 16:30 UTC.
        #expect(
            hours.stretch(containing: Self.at("2026-12-01 17:00 UTC"), systemZone: Self.berlin)
                == Self.at("2026-12-01 16:30 UTC")..<Self.at("2026-12-01 18:00 UTC"))
        #expect(
            hours.nextStart(after: Self.at("2026-12-01 18:00 UTC"), systemZone: Self.berlin)
                == Self.at("2026-12-02 16:30 UTC"))
    }

    @Test func switchedOnItIsQuietUntilItsEndOrUntilSwitchedOff() {
        let on = QuietSwitch(.on, setAt: Self.at("2026-12-01 10:00 UTC"), until: Self.at("2026-12-01 11:00 UTC"))
        let during = Self.quietness("2026-12-01 10:30 UTC", switch: on)
        #expect(during.reasons == [.switchedOn(until: Self.at("2026-12-01 11:00 UTC"))])
        #expect(during.nextChange == Self.at("2026-12-01 11:00 UTC"))
        #expect(!Self.quietness("2026-12-01 11:00 UTC", switch: on).isQuiet)

        let indefinitely = QuietSwitch(.on, setAt: Self.at("2026-12-01 10:00 UTC"))
        let open = Self.quietness("2026-12-03 10:00 UTC", switch: indefinitely)
        #expect(open.isQuiet)
        #expect(open.expectedEnd == nil)
        // Only the next window's start is ahead: it changes nothing, but it is when to look again.
        #expect(open.nextChange == Self.at("2026-12-03 21:00 UTC"))
    }

    @Test func switchedOffDuringAWindowItIsLoudUntilTheNextWindow() {
        let off = QuietSwitch(.off, setAt: Self.at("2026-12-01 23:00 UTC"))
        let rest = Self.quietness("2026-12-02 01:00 UTC", switch: off)
        #expect(!rest.isQuiet)
        // Quiet again at the next window's start, which `chimectl quiet` shows; nothing changes at this one's end.
        #expect(rest.nextChange == Self.at("2026-12-02 21:00 UTC"))
        #expect(Self.quietness("2026-12-02 21:00 UTC", switch: off).isQuiet)
        // Off before a window began changes nothing about it.
        let early = QuietSwitch(.off, setAt: Self.at("2026-12-01 20:00 UTC"))
        #expect(Self.quietness("2026-12-01 21:00 UTC", switch: early).isQuiet)
    }

    @Test func theDesktopsDoNotDisturbIsQuietUntilItSaysOtherwise() {
        let quietness = Self.quietness("2026-12-01 12:00 UTC", desktop: "dunst")
        #expect(quietness.reasons == [.desktop("dunst")])
        #expect(quietness.expectedEnd == nil)
        #expect(quietness.nextChange == Self.at("2026-12-01 21:00 UTC"))
        #expect(!Self.quietness("2026-12-01 12:00 UTC", QuietHours()).isQuiet)
        #expect(Self.quietness("2026-12-01 12:00 UTC", QuietHours()).nextChange == nil)
    }

    @Test func aWindowThatNeverEndsIsSearchedOnlySoFar() {
        // Every second, for a minute: always quiet; the search stops at its limit instead of running for ever.
        let hours = QuietHours([Self.window("*-*-* *:*:*", hours: 1.0 / 60)])
        let stretch = hours.stretch(containing: Self.at("2026-12-01 12:00 UTC"), systemZone: Self.berlin)
        #expect(stretch?.contains(Self.at("2026-12-01 12:00 UTC")) == true)
        #expect(stretch!.upperBound > Self.at("2026-12-01 12:01 UTC"))
    }

    @Test func criticalAlwaysPassesAndTheRestFollowThePolicy() {
        var policy = QuietPolicy()
        #expect(ScheduledNotification.InterruptionLevel.allCases.map(policy.handling) == [.hold, .hold, .pass, .pass])
        policy.passive = .drop
        policy.active = .journal
        policy.timeSensitive = .hold
        #expect(
            ScheduledNotification.InterruptionLevel.allCases.map(policy.handling) == [.drop, .journal, .hold, .pass])
    }
}
