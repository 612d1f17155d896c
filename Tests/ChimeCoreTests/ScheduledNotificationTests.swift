import Foundation
import Testing

@testable import ChimeCore

/// `ScheduledNotification`'s compact storage gives back exactly what was set.
@Suite struct ScheduledNotificationTests {
    @Test(arguments: [
        [],
        [("kind", "bench")],
        [("kind", "bench"), ("n", "12345")],
        // Lengths, separators and digits inside the text, empty parts, and text that is not ASCII.
        [("a", ""), ("", "b"), ("12:3", "4:5:"), ("x", String(repeating: "0123456789", count: 30))],
        [("emoji", "🚀 e\u{301}"), ("\u{301}", "naïve"), ("nul", "a\u{0}b"), ("line", "one\ntwo")],
    ])
    func infoRoundTrips(_ pairs: [(String, String)]) {
        var notification = ScheduledNotification(id: "n", title: "t", trigger: Trigger())
        notification.info = pairs.map { (key: $0.0, value: $0.1) }
        #expect(notification.info.map(\.key) == pairs.map(\.0))
        #expect(notification.info.map(\.value) == pairs.map(\.1))
        // Nothing else is touched, and equality sees the pairs.
        #expect(notification.extrasAreDefault)
        var other = notification
        other.info.append((key: "more", value: "x"))
        #expect(other != notification)
        other.info.removeLast()
        #expect(other == notification)
    }

    /// A million of them are held at once: what most leave unset stays out of line (Extras, Trigger's rare keys,
    /// the history's missing last occurrence).
    @Test func aScheduledNotificationAndItsHistoryStayCompact() {
        #expect(MemoryLayout<Trigger>.size == 32)
        #expect(MemoryLayout<ScheduledNotification>.stride == 112)
        #expect(MemoryLayout<DeliveryHistory>.stride == 16)
    }

    @Test func aTriggersRareKeysRoundTripAndCopiesAreIndependent() {
        var trigger = Trigger()
        trigger.calendars = [try! CalendarSpec("daily", localZone: .utc, zones: .system)]
        #expect(trigger.interval == nil && trigger.from == nil && trigger.count == nil && trigger.until == nil)
        #expect(!trigger.isPersistent && trigger.recurrence == nil && trigger.countLimit == nil)
        let plain = trigger
        trigger.interval = Timespan(microseconds: 3_600_000_000)
        trigger.from = Date(timeIntervalSince1970: 1_800_000_000)
        trigger.until = Date(timeIntervalSince1970: 1_900_000_000)
        trigger.isPersistent = true
        trigger.count = 5
        #expect(trigger.interval == Timespan(microseconds: 3_600_000_000) && trigger.count == 5)
        #expect(trigger.from == Date(timeIntervalSince1970: 1_800_000_000) && trigger.isPersistent)
        #expect(trigger.until == Date(timeIntervalSince1970: 1_900_000_000))
        // Count= beside a calendar walks its sequence once and keeps the limit; the copy made before has none.
        #expect(trigger.countLimit != nil && plain.countLimit == nil)
        #expect(plain.interval == nil && plain.count == nil && trigger != plain)
        var copy = trigger
        copy.count = nil
        #expect(copy.countLimit == nil && trigger.count == 5 && trigger.countLimit != nil)
        copy.interval = nil
        copy.from = nil
        copy.until = nil
        copy.isPersistent = false
        #expect(copy == plain)
    }

    @Test func aHistoryWithoutALastOccurrenceIsNotOneWithIt() {
        let seen = Date(timeIntervalSince1970: 1_800_000_000)
        var history = DeliveryHistory(firstSeen: seen)
        #expect(history.lastOccurrence == nil && history == DeliveryHistory(firstSeen: seen))
        history.lastOccurrence = Date(timeIntervalSince1970: 1_800_000_000.25)
        #expect(history.lastOccurrence == Date(timeIntervalSince1970: 1_800_000_000.25))
        #expect(history != DeliveryHistory(firstSeen: seen))
        history.lastOccurrence = nil
        #expect(history == DeliveryHistory(firstSeen: seen))
    }

    /// A notification read again with one key changed shares the parts that did not change with the one before,
    /// and is still itself.
    @Test func equalPartsAreSharedWithTheNotificationBefore() throws {
        func read(_ title: String) throws -> ScheduledNotification {
            var notification = ScheduledNotification(
                id: "exam", title: String(decoding: Array(title.utf8), as: UTF8.self), trigger: Trigger())
            // Made at run time, each a string of its own (a literal is one for all).
            notification.body = ["Room 4B", "second floor", "bring a calculator"].joined(separator: ", ")
            notification.info = [(key: "room", value: "4B"), (key: "course", value: "Linear Algebra II")]
            notification.trigger.calendars = [try CalendarSpec("Mon..Fri 09:00", localZone: .utc, zones: .system)]
            notification.sound = "default"
            return notification
        }
        let before = try read("Exam: Linear Algebra")
        let now = try read("Exam: Linear Algebra (moved)")
        var shared = now
        withUnsafePointer(to: before) { shared.share(withNotificationAt: $0) }
        #expect(shared == now)
        #expect(shared != before)
        func same(_ a: String, _ b: String) -> Bool {
            a.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
                == b.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        }
        #expect(same(shared.body, before.body))
        #expect(!same(now.body, before.body))
        #expect(!same(shared.title, before.title))
        #expect(
            shared.trigger.calendars.withUnsafeBufferPointer { $0.baseAddress }
                == before.trigger.calendars.withUnsafeBufferPointer { $0.baseAddress })
        #expect(shared.info.map(\.value) == ["4B", "Linear Algebra II"])

        // An equal one becomes the one before, storage and all.
        var again = try read("Exam: Linear Algebra")
        #expect(!same(again.title, before.title))
        withUnsafePointer(to: before) { again.share(withNotificationAt: $0) }
        #expect(again == before)
        #expect(same(again.title, before.title))
    }

    /// Triggers are told identical from their bytes only when they are the same storage: a copy, or one that took
    /// the earlier one's; an equal trigger built on its own is equal but not identical.
    @Test func triggersAreIdenticalOnlyWhereTheyAreTheSameStorage() throws {
        func read(_ event: String) throws -> ScheduledNotification {
            var notification = ScheduledNotification(id: "n", title: "t", trigger: Trigger())
            notification.trigger.calendars = [try CalendarSpec(event, localZone: .utc, zones: .system)]
            notification.trigger.until = Date(timeIntervalSince1970: 1_800_000_000)
            return notification
        }
        func identical(_ a: ScheduledNotification, _ b: ScheduledNotification) -> Bool {
            withUnsafePointer(to: a) { a in
                withUnsafePointer(to: b) { ScheduledNotification.haveIdenticalTriggers(a, $0) }
            }
        }
        let before = try read("Mon 09:00")
        var equal = try read("Mon 09:00")
        let copy = before
        #expect(identical(copy, before))
        #expect(equal.trigger == before.trigger && !identical(equal, before))
        #expect(!identical(try read("Tue 09:00"), before))
        equal.title = "edited"
        withUnsafePointer(to: before) { equal.share(withNotificationAt: $0) }
        #expect(identical(equal, before))
        #expect(equal.title == "edited")
    }
}
