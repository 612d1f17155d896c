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
}
