import ChimeCore
import ChimeKit
import ChimePlatform
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

/// ChimeKit's `NotificationCenter` against the real chimed, activated on a private session bus: the calls of
/// `UNUserNotificationCenter`, the errors as Swift values, and the deliveries as an async sequence.
@Suite(.serialized) struct ChimeKitTests {
    @Test func anApplicationSchedulesListsCancelsAndHearsOfDeliveries() async throws {
        let session = try ApplicationInterfaceTests.Session()
        defer { session.stop() }
        let center = try NotificationCenter(applicationID: "org.example.Reminders", busAddress: session.bus.address)
        let deliveries = try await center.deliveries()
        // The first call starts chimed. The exam is due in an hour while the calls below (seconds on a busy machine)
        // list and refuse; then it is replaced by one due in two seconds.
        #expect(try await center.badgeCount() == 0)

        let inAnHour = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.up))
        let content = NotificationContent(
            title: "Exam: Linear Algebra", body: "Room 4B, bring a pencil", badge: "+1",
            actions: [(key: "open", label: "Open the timetable")], userInfo: [(key: "room", value: "4B")])
        let exam = NotificationRequest(identifier: "exam", content: content, trigger: .date(inAnHour))
        #expect(try await center.add(exam) == inAnHour)
        let weekly = NotificationRequest(
            identifier: "weekly",
            content: NotificationContent(
                title: "Week ahead", sound: "default", ring: "until-answered", volume: "80%", fadeIn: "20s"),
            trigger: .calendar(["Mon 07:00"], timeZone: "Europe/Berlin"))
        let weeklyNext = try #require(try await center.add(weekly))
        #expect(weeklyNext > Date())

        // An RFC 5545 rule, as a calendar repeats an event: the last Friday of each month at 17:00 in Berlin, taken
        // as strings and given back as sent.
        let payday = NotificationRequest(
            identifier: "payday", content: NotificationContent(title: "Payday"),
            trigger: .recurrence(
                ["FREQ=MONTHLY;BYDAY=-1FR"], start: "2026-01-30 17:00", timeZone: "Europe/Berlin",
                adding: ["20261224T170000"], excluding: ["20261225"]))
        let paydayNext = try #require(try await center.add(payday))
        let berlin = try ZoneDatabase.system.rules(named: "Europe/Berlin")
        let local = try #require(Timestamp.format(paydayNext, zone: berlin))
        #expect(local.hasPrefix("Fri ") || local.hasPrefix("Thu 2026-12-24 "), "\(local)")
        #expect(local.contains(" 17:00:00 "), "\(local)")
        #expect(
            try await center.pendingNotificationRequests().first { $0.request.identifier == "payday" }?.request
                == payday)
        try await center.removePendingNotificationRequests(withIdentifiers: ["payday"])

        // What comes back is what was sent.
        let pending = try await center.pendingNotificationRequests()
        #expect(pending.map(\.request.identifier).sorted() == ["exam", "weekly"])
        let listedExam = pending.first { $0.request.identifier == "exam" }
        #expect(listedExam?.request == exam)
        #expect(listedExam?.nextFireDate == inAnHour)
        let listedWeekly = pending.first { $0.request.identifier == "weekly" }
        #expect(listedWeekly?.request == weekly)
        #expect(listedWeekly?.nextFireDate == weeklyNext)

        // Refusals are Swift errors with chimed's message.
        await #expect(
            throws: NotificationCenterError.invalidArgument(
                "Invalid Urgency= 'loud': expected low, normal or critical.")
        ) {
            try await center.add(
                NotificationRequest(
                    identifier: "loud", content: NotificationContent(title: "Loud", urgency: "loud"),
                    trigger: .every(.seconds(90))))
        }
        // Nothing ahead: nil, and nothing kept.
        #expect(
            try await center.add(
                NotificationRequest(
                    identifier: "past", content: NotificationContent(title: "Past"),
                    trigger: .date(Date(timeIntervalSince1970: 1)))) == nil)

        try await center.removePendingNotificationRequests(withIdentifiers: ["weekly"])
        #expect(try await center.pendingNotificationRequests().map(\.request.identifier) == ["exam"])
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2).rounded(.up))
        #expect(
            try await center.add(NotificationRequest(identifier: "exam", content: content, trigger: .date(due))) == due)

        // The delivery, as the application hears of it.
        var iterator = deliveries.makeAsyncIterator()
        let delivered = await iterator.next()
        #expect(delivered == DeliveredNotification(identifier: "exam", fireDate: due))
        try await center.removeAllPendingNotificationRequests()
        #expect(try await center.pendingNotificationRequests().isEmpty)
        // The user's chimed.conf: everything allowed, to stdout; no notification server on this bus.
        let settings = try await center.notificationSettings()
        #expect(
            settings
                == NotificationSettings(
                    alertsAllowed: true, soundsAllowed: true, badgesAllowed: true, backends: ["stdout"],
                    desktopServer: settings.desktopServer))
        #expect(
            settings.desktopServer?.hasPrefix("no notification server on the session bus") == true,
            "\(settings.desktopServer ?? "nil")")
        // The exam's Badge=+1 counted on the application's badge; the app clears it.
        #expect(try await center.badgeCount() == 1)
        try await center.setBadgeCount(0)
        #expect(try await center.badgeCount() == 0)
    }

    /// What the desktop still shows, closed from the application, and the user's answers as an async sequence.
    @Test func anApplicationSeesItsBubblesAndTheUsersAnswers() async throws {
        let session = try ApplicationInterfaceTests.Session(configuration: "[Daemon]\nDeliver=desktop\n")
        defer { session.stop() }
        let server = try session.notificationServer()
        defer { server.stop() }
        let center = try NotificationCenter(applicationID: "org.example.Reminders", busAddress: session.bus.address)
        let responses = try await center.responses()

        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2).rounded(.up))
        let exam = NotificationContent(
            title: "Exam", body: "Room 4B", actions: [(key: "open", label: "Open")],
            userInfo: [(key: "room", value: "4B")], interruptionLevel: "time-sensitive",
            threadIdentifier: "Linear Algebra")
        try await center.add(NotificationRequest(identifier: "exam", content: exam, trigger: .date(due)))
        try await center.add(
            NotificationRequest(identifier: "quiz", content: NotificationContent(title: "Quiz"), trigger: .date(due)))
        let calls = ChimedDesktopTests.notifyCalls(server, 2)
        try #require(calls.count == 2, "\(session.bus.output)")
        let bubbles = ChimedDesktopTests.bubbles(calls)

        // A bubble is chimed's once the server has answered its Notify, which may come just after the server saw it.
        var shown = try await center.deliveredNotifications().sorted { $0.identifier < $1.identifier }
        let deadline = Date() + 5
        while shown.count < 2 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            shown = try await center.deliveredNotifications().sorted { $0.identifier < $1.identifier }
        }
        #expect(
            shown == [
                DeliveredNotification(identifier: "exam", fireDate: due, content: exam),
                DeliveredNotification(identifier: "quiz", fireDate: due, content: NotificationContent(title: "Quiz")),
            ])

        // The user chooses an action on one bubble and closes the other.
        try await ChimedDesktopTests.choose("open", on: try #require(bubbles["Exam"]), bus: session.bus)
        var answers = responses.makeAsyncIterator()
        #expect(
            await answers.next()
                == NotificationResponse(identifier: "exam", actionIdentifier: "open", userInfo: [("room", "4B")]))
        try await ChimedDesktopTests.close(try #require(bubbles["Quiz"]), reason: 2, bus: session.bus)
        #expect(
            await answers.next()
                == NotificationResponse(
                    identifier: "quiz", actionIdentifier: NotificationResponse.dismissActionIdentifier))
        #expect(try await center.deliveredNotifications().map(\.identifier) == ["exam"])

        #expect(
            try await center.notificationSettings().desktopServer
                == "recorder 1.0 (chime-tests); capabilities: actions, body")
        try await center.removeAllDeliveredNotifications()
        #expect(try await center.deliveredNotifications().isEmpty)
    }

    /// A request that repeats until acknowledged: its repeats reach the application, and its acknowledgement stops
    /// them.
    @Test func anApplicationAcknowledgesARepeatingRequest() async throws {
        let session = try ApplicationInterfaceTests.Session()
        defer { session.stop() }
        let center = try NotificationCenter(applicationID: "org.example.Reminders", busAddress: session.bus.address)
        let deliveries = try await center.deliveries()
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2).rounded(.up))
        let content = NotificationContent(title: "Pills", repeats: "1s")
        try await center.add(NotificationRequest(identifier: "pills", content: content, trigger: .date(due)))
        #expect(try await center.pendingNotificationRequests().map(\.request.content) == [content])

        var heard = deliveries.makeAsyncIterator()
        #expect(await heard.next()?.identifier == "pills")
        #expect(await heard.next()?.identifier == "pills")
        try await center.acknowledgeNotifications(withIdentifiers: ["pills", "unknown"])
        func delivered() -> Int {
            session.bus.output.components(separatedBy: #""id":"org.example.Reminders:pills""#).count - 1
        }
        // The acknowledgement is made before the call returns; a repeat already handed off may still be written, then
        // nothing more, for longer than a repeat takes.
        usleep(300_000)
        let settled = delivered()
        usleep(1_500_000)
        #expect(delivered() == settled, "\(session.bus.output)")
        #expect(try await center.pendingNotificationRequests().isEmpty)
    }
}
