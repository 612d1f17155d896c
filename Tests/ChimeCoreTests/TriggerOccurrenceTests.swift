import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// `Trigger.nextOccurrence`: the pure "when next" of a notification, from its triggers and its history.
@Suite struct TriggerOccurrenceTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")

    /// The trigger of `lines`, read with no floor on how often it fires (the rules are the subject here).
    static func trigger(_ lines: String) -> Trigger {
        var loader = NotificationLoader(systemZone: berlin, zones: .system)
        loader.minimumInterval = .zero
        let text = "[Notification]\nTitle=t\n[Trigger]\n" + lines
        let result = loader.load(UnitFile(parsing: text, path: "t.notification"), id: "t", path: "t.notification")
        return result.notification!.trigger
    }

    /// The first occurrences after `after`, as ISO strings.
    static func occurrences(_ lines: String, after: String, firstSeen: String? = nil, limit: Int = 5) -> [String] {
        let history = DeliveryHistory(firstSeen: TestDate.iso(firstSeen ?? after)!)
        return trigger(lines).occurrences(
            after: TestDate.iso(after)!, history: history, systemZone: berlin, limit: limit
        )
        .map { Timestamp.iso8601($0) }
    }

    @Test(arguments: [
        // A one-shot: exactly once, at its instant; nothing at or after it.
        ("At=2026-12-01 07:00", "2026-11-30T12:00:00Z", ["2026-12-01T06:00:00Z"]),
        ("At=2026-12-01 07:00", "2026-12-01T05:59:59Z", ["2026-12-01T06:00:00Z"]),
        ("At=2026-12-01 07:00", "2026-12-01T06:00:00Z", []),
        // Every= without From= starts one interval after the first sighting.
        (
            "Every=15min\nCount=3", "2026-11-30T09:00:00Z",
            [
                "2026-11-30T09:15:00Z", "2026-11-30T09:30:00Z", "2026-11-30T09:45:00Z",
            ]
        ),
        // With From=, at From= itself, and Count= keeps the first N from there.
        (
            "Every=1h\nFrom=2026-11-30 08:00\nCount=2", "2026-11-30T06:00:00Z",
            [
                "2026-11-30T07:00:00Z", "2026-11-30T08:00:00Z",
            ]
        ),
        // Occurrences already gone count towards Count= (the first four of seven are past).
        (
            "Every=1h\nFrom=2026-11-30 08:00\nCount=7", "2026-11-30T10:30:00Z",
            [
                "2026-11-30T11:00:00Z", "2026-11-30T12:00:00Z", "2026-11-30T13:00:00Z",
            ]
        ),
        // Until= is inclusive.
        (
            "Every=1h\nFrom=2026-11-30 08:00\nUntil=2026-11-30 10:00", "2026-11-30T06:00:00Z",
            [
                "2026-11-30T07:00:00Z", "2026-11-30T08:00:00Z", "2026-11-30T09:00:00Z",
            ]
        ),
        // Calendar events in the system zone (Berlin), across the autumn DST change.
        (
            "OnCalendar=*-*-* 02:30", "2026-10-24T12:00:00Z",
            [
                "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z", "2026-10-27T01:30:00Z",
            ]
        ),
        // Several triggers merge; a shared instant is one occurrence.
        (
            "OnCalendar=*-*-* 12:00\nAt=2026-12-01 12:00\nAt=2026-12-01 12:30", "2026-12-01T00:00:00Z",
            [
                "2026-12-01T11:00:00Z", "2026-12-01T11:30:00Z", "2026-12-02T11:00:00Z",
            ]
        ),
        // Count= over calendar events counts from the first sighting.
        ("OnCalendar=daily\nCount=2", "2026-12-01T12:00:00Z", ["2026-12-01T23:00:00Z", "2026-12-02T23:00:00Z"]),
        // TimeZone= moves wall-clock times.
        (
            "OnCalendar=*-*-* 07:00\nTimeZone=Asia/Tokyo", "2026-12-01T00:00:00Z",
            [
                "2026-12-01T22:00:00Z", "2026-12-02T22:00:00Z", "2026-12-03T22:00:00Z",
            ]
        ),
    ])
    func occurrences(lines: String, after: String, expected: [String]) {
        #expect(Self.occurrences(lines, after: after, limit: 3) == expected)
    }

    @Test func countIsKeptAcrossHistory() {
        // Seven occurrences from the first sighting; asking from later never yields an eighth.
        let trigger = Self.trigger("Every=10min\nCount=7")
        let history = DeliveryHistory(firstSeen: TestDate.iso("2026-11-30T09:00:00Z")!)
        let all = trigger.occurrences(
            after: TestDate.iso("2026-11-30T09:00:00Z")!, history: history, systemZone: Self.berlin, limit: 100)
        #expect(all.count == 7)
        #expect(all.last == TestDate.iso("2026-11-30T10:10:00Z")!)
        #expect(
            trigger.nextOccurrence(
                after: TestDate.iso("2026-11-30T10:10:00Z")!, history: history, systemZone: Self.berlin)
                == nil)
    }

    @Test func lastOccurrenceIsNeverRepeated() {
        let trigger = Self.trigger("OnCalendar=*-*-* *:00")
        let history = DeliveryHistory(
            firstSeen: TestDate.iso("2026-11-30T00:00:00Z")!, lastOccurrence: TestDate.iso("2026-11-30T10:00:00Z")!)
        // Even asked from before the last delivery (a backward clock jump), the next is after it.
        let next = trigger.nextOccurrence(
            after: TestDate.iso("2026-11-30T08:30:00Z")!, history: history, systemZone: Self.berlin)
        #expect(next == TestDate.iso("2026-11-30T11:00:00Z")!)
    }

    @Test func countOverMergedSourcesFollowsItsWindowAndChanges() {
        // Count= over calendar events and instants: the last allowed occurrence is found once per window start.
        var trigger = Self.trigger("OnCalendar=*-*-* 12:00\nAt=2026-12-01 09:00\nCount=3")
        let early = DeliveryHistory(firstSeen: TestDate.iso("2026-12-01T00:00:00Z")!)
        let later = DeliveryHistory(firstSeen: TestDate.iso("2026-12-05T00:00:00Z")!)
        func all(_ trigger: Trigger, _ history: DeliveryHistory) -> [String] {
            trigger.occurrences(after: history.firstSeen, history: history, systemZone: Self.berlin, limit: 10)
                .map { Timestamp.iso8601($0) }
        }
        #expect(all(trigger, early) == ["2026-12-01T08:00:00Z", "2026-12-01T11:00:00Z", "2026-12-02T11:00:00Z"])
        // Seen first on another day, the same trigger counts from there (the At= instant is then before it).
        #expect(all(trigger, later) == ["2026-12-05T11:00:00Z", "2026-12-06T11:00:00Z", "2026-12-07T11:00:00Z"])
        #expect(all(trigger, early).count == 3)
        // A copy with another Count= does not reuse what the original found; the original keeps its own.
        let original = trigger
        trigger.count = 1
        #expect(all(trigger, early) == ["2026-12-01T08:00:00Z"])
        #expect(all(original, early).count == 3)
        // Asked from far inside the window, the answer is the same as walking: nothing after the third.
        #expect(
            original.nextOccurrence(
                after: TestDate.iso("2026-12-02T11:00:00Z")!, history: early, systemZone: Self.berlin)
                == nil)
    }

    @Test func countOverMergedSourcesWalksOnlyAsFarAsAsked() {
        // A sequence with an occurrence every microsecond and a Count= of a billion: asking for the third
        // occurrence looks at three (and the one after, which the walk keeps), and asking on from there goes on
        // from where the walk stopped.
        let walk = CountLimit()
        var looked = 0
        func next(_ wanted: Int64) -> Int64? {
            walk.next(atOrAfter: wanted, windowStart: 1_000, zone: .utc, count: 1_000_000_000, sources: 1) {
                looked += 1
                return $1
            }
        }
        #expect(next(1_002) == 1_002)
        #expect(looked == 4)
        #expect(next(1_005) == 1_005)
        #expect(looked == 7)
        // Already counted: answered by one look, not by walking again.
        #expect(next(1_001) == 1_001)
        #expect(looked == 8)
        // Count= ends the sequence: nothing after the N-th.
        let short = CountLimit()
        let answer = short.next(atOrAfter: 1_010, windowStart: 1_000, zone: .utc, count: 5, sources: 1) { $1 }
        #expect(answer == nil)
    }

    @Test func countOverManySourcesAdvancesOnlyTheSourceCounted() {
        // 100 sources, source k at every instant that is k modulo 100, and two more equal to source 0: together an
        // occurrence every microsecond, each counted once. Counting 10,000 of them asks each source for its own
        // (about 100 each, 10,000 in all, plus the first of each), not every source at every step (a million).
        let walk = CountLimit()
        var looked = 0
        let answer = walk.next(atOrAfter: 10_999, windowStart: 1_000, zone: .utc, count: 10_000, sources: 102) {
            source, start in
            looked += 1
            let residue = Int64(source < 100 ? source : 0)
            return start + (residue - start % 100 + 100) % 100
        }
        #expect(answer == 10_999)
        #expect(looked <= 10_000 + 3 * 100 + 102)
        // The 10,000th was the last: nothing after it.
        #expect(walk.next(atOrAfter: 11_000, windowStart: 1_000, zone: .utc, count: 10_000, sources: 102) { $1 } == nil)
    }

    @Test func countIsBoundedOnlyWhereItIsCountedByStepping() {
        // With Every= alone the N-th occurrence is computed, so any Count= will do; with OnCalendar= or At= it is
        // found by stepping from the window's start, and the count bounds that.
        #expect(Self.trigger("Every=1us\nCount=1000000000").count == 1_000_000_000)
        #expect(Self.trigger("OnCalendar=*:*:0/0.000001\nCount=10000").count == 10_000)
        #expect(Self.trigger("At=2026-12-01 09:00\nEvery=1us\nCount=10000").count == 10_000)
        var loader = NotificationLoader(systemZone: Self.berlin, zones: .system)
        loader.minimumInterval = .zero
        func refusal(_ lines: String) -> String? {
            let text = "[Notification]\nTitle=t\n[Trigger]\n\(lines)"
            let result = loader.load(UnitFile(parsing: text, path: "t.notification"), id: "t", path: "t.notification")
            return result.notification == nil ? result.diagnostics.map(\.message).joined(separator: " | ") : nil
        }
        for sources in ["OnCalendar=*:*:0/0.000001", "At=2026-12-01 09:00\nEvery=1us"] {
            #expect(
                refusal("\(sources)\nCount=10001")?.hasPrefix("Count= may be at most 10,000 with OnCalendar=") == true)
        }
        // Events that fire together are each searched at every step: the bound is shared among them.
        let three = "OnCalendar=*:*:*\nOnCalendar=*:*:0/1\nOnCalendar=*-*-* *:*:*\n"
        #expect(refusal(three + "Count=3333") == nil)
        #expect(
            refusal(three + "Count=3334")?.hasPrefix("Count= may be at most 3,333 with 3 OnCalendar= events") == true)
    }

    @Test func instantsAreKeptInOrderHoweverTheyAreGiven() {
        var trigger = Trigger()
        trigger.instants = [TestDate.iso("2026-12-03T00:00:00Z")!, TestDate.iso("2026-12-01T00:00:00Z")!]
        trigger.instants.append(TestDate.iso("2026-12-02T00:00:00Z")!)
        #expect(
            trigger.instants.map { Timestamp.iso8601($0) } == [
                "2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z",
            ])
        let history = DeliveryHistory(firstSeen: TestDate.iso("2026-11-30T00:00:00Z")!)
        let after = TestDate.iso("2026-12-01T12:00:00Z")!
        #expect(
            trigger.occurrences(after: after, history: history, systemZone: Self.berlin, limit: 5)
                .map { Timestamp.iso8601($0) } == ["2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z"])
    }

    @Test func countOverMillionsStaysFast() {
        // The Every= fast path computes the k-th occurrence directly.
        let trigger = Self.trigger("Every=1s\nFrom=2026-01-01 00:00 UTC\nCount=100000000")
        let history = DeliveryHistory(firstSeen: TestDate.iso("2026-01-01T00:00:00Z")!)
        let next = trigger.nextOccurrence(
            after: TestDate.iso("2026-06-01T00:00:00.5Z")!, history: history, systemZone: Self.berlin)
        #expect(next == TestDate.iso("2026-06-01T00:00:01Z")!)
    }
}
