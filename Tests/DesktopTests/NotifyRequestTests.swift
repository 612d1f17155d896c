import Testing

@testable import ChimeCore
@testable import ChimeDaemon

/// The pure parts of the `Notify` arguments: expire timeouts, escaping, urgency levels.
struct NotifyRequestTests {
    @Test(arguments: [
        (Duration.zero, Int32(0)), (.microseconds(1), 1), (.milliseconds(1500), 1500), (.seconds(30), 30_000),
        (.seconds(100_000_000), Int32.max),
    ])
    func expireSecIsMilliseconds(_ expire: Duration, _ milliseconds: Int32) {
        #expect(NotifyRequest.milliseconds(expire) == milliseconds)
    }

    @Test(arguments: [
        ("plain", "plain"), ("a < b > c", "a &lt; b &gt; c"), ("R&D", "R&amp;D"), ("&amp;", "&amp;amp;"),
        ("<b>Über</b>", "&lt;b&gt;Über&lt;/b&gt;"),
    ])
    func markupIsEscaped(_ text: String, _ escaped: String) {
        #expect(NotifyRequest.escapingMarkup(text) == escaped)
    }

    @Test func urgencyLevelsAreTheSpecificationsBytes() {
        #expect(ScheduledNotification.Urgency.allCases.map(NotifyRequest.urgencyLevel) == [0, 1, 2])
        // Without Urgency=, an interruption level gives the urgency the bubble is sent with.
        #expect(
            ScheduledNotification.InterruptionLevel.allCases.map { NotifyRequest.urgencyLevel($0.defaultUrgency) }
                == [0, 1, 1, 2])
    }
}
