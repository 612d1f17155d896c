import ChimeDaemonTestSupport
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore
@testable import ChimeDaemon

/// Why the desktop tests cannot run here, if they cannot.
let desktopTestsUnmetRequirement: String? =
    PrivateSessionBus.daemonPath == nil
    ? "needs dbus-daemon (apt-get install dbus-daemon)" : DBusFixture.unavailableReason

/// The desktop backend against a private `dbus-daemon` and the recording notification server of
/// Tests/Fixtures/dbus-fixture.py: the exact `Notify` arguments, `replaces_id`, the answers, and a server that is
/// missing and then appears.
@Suite(
    .serialized,
    .enabled(if: desktopTestsUnmetRequirement == nil, "skipped: \(desktopTestsUnmetRequirement ?? "")"))
struct DesktopBackendTests {
    /// A private bus, optionally a notification server on it, and a desktop backend connected to it.
    final class Harness: @unchecked Sendable {
        let directory: TemporaryDirectory
        let bus: PrivateSessionBus
        var server: DBusFixture?
        let responder = RecordingResponder()
        let log = RecordingEventLog()
        let backend: DesktopBackend

        init(
            capabilities: String? = "actions,body,body-markup", settings: DesktopSettings = DesktopSettings(),
            applicationNames: (any ApplicationNames)? = nil
        ) throws {
            directory = try TemporaryDirectory(prefix: "chime-desktop")
            bus = try PrivateSessionBus(directory: directory)
            let context = BackendContext(
                log: log, clock: SystemWallClock(), responder: responder,
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], applicationNames: applicationNames)
            backend = DesktopBackend(settings: settings, context: context)
            if let capabilities { try startServer(capabilities: capabilities) }
        }

        func startServer(capabilities: String) throws {
            server = try DBusFixture(
                "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=\(capabilities)"])
        }

        /// The `Notify` calls the server recorded, once there are `count` of them (or the deadline passed).
        func notifyCalls(count: Int) -> [[String: Any]] {
            let records = server?.waitForRecords { records in
                records.filter { $0["method"] as? String == "Notify" }.count >= count
            }
            return (records ?? []).filter { $0["method"] as? String == "Notify" }
        }

        /// Asks the server to emit one of its signals (through its control interface).
        func emit(_ member: String, _ serverID: UInt32, key: String? = nil, reason: UInt32? = nil) async throws {
            let control = try BusConnection(address: bus.address, label: "chime.test.control")
            defer { control.close() }
            try await control.call(
                destination: "org.freedesktop.Notifications", path: "/org/chime/Test",
                interface: "org.chime.Test.Control", member: member,
                arguments: { writer in
                    try writer.append(.uint32(serverID))
                    if let key { try writer.append(key) }
                    if let reason { try writer.append(.uint32(reason)) }
                }
            ) { _ in }
        }

        /// Waits up to 10 s for the responder to have `count` answers.
        func answers(count: Int) -> [RecordingResponder.Answer] {
            let deadline = ContinuousClock.now + .seconds(10)
            while responder.answers.count < count && ContinuousClock.now < deadline { usleep(10_000) }
            return responder.answers
        }

        func tearDown() {
            server?.stop()
            bus.stop()
            directory.remove()
        }
    }

    static func delivery(
        _ id: String, title: String = "Exam: Linear Algebra",
        configure: (inout ScheduledNotification) -> Void = { _ in }
    ) -> Delivery {
        var notification = ScheduledNotification(id: id, title: title, trigger: Trigger())
        configure(&notification)
        return Delivery(notification: notification, fireTime: Date(timeIntervalSince1970: 1_795_000_000))
    }

    /// A value recorded by the fixture, `{"type": "y", "value": 2}`, as "y 2".
    static func typed(_ value: Any?) -> String {
        guard let value = value as? [String: Any], let type = value["type"] as? String else { return "?" }
        switch (type, value["value"]) {
        case ("b", let flag as Bool): return "b \(flag)"
        case (_, let number as Int): return "\(type) \(number)"
        case (_, let string as String): return "\(type) \(string)"
        default: return "\(type) ?"
        }
    }

    /// The hints of a recorded call as `[key: "type value"]`.
    static func hints(_ call: [String: Any]) -> [String: String] {
        (call["hints"] as? [String: Any] ?? [:]).mapValues(typed)
    }

    @Test func notifyCarriesEveryFieldForAServerWithActionsAndMarkup() async throws {
        var settings = DesktopSettings()
        settings.appName = "chime-test"
        settings.desktopEntry = "org.example.Chime"
        settings.expire = .seconds(5)
        let harness = try Harness(settings: settings)
        defer { harness.tearDown() }
        let delivery = Self.delivery("exam") { notification in
            notification.body = "Room 4B <east> & bring R&D notes"
            notification.icon = "x-office-calendar"
            notification.category = "im.received"
            notification.sound = "default"
            notification.urgency = .critical
            notification.actions = [.init(key: "default", label: "Open"), .init(key: "snooze", label: "Snooze")]
        }
        try await harness.backend.deliver(delivery, deliveredAt: Date())
        let call = try #require(harness.notifyCalls(count: 1).first)
        #expect(call["app_name"] as? String == "chime-test")
        #expect(call["replaces_id"] as? Int == 0)
        #expect(call["app_icon"] as? String == "x-office-calendar")
        #expect(call["summary"] as? String == "Exam: Linear Algebra")
        #expect(call["body"] as? String == "Room 4B &lt;east&gt; &amp; bring R&amp;D notes")
        #expect(call["actions"] as? [String] == ["default", "Open", "snooze", "Snooze"])
        #expect(call["expire_timeout"] as? Int == 5000)
        #expect(
            Self.hints(call) == [
                "urgency": "y 2", "category": "s im.received",
                "desktop-entry": "s org.example.Chime",
                "sound-name": "s message-new-instant",
            ])
    }

    struct Names: ApplicationNames {
        func name(of appID: String) -> String? { appID == "org.example.Reminders" ? "Reminders" : nil }
    }

    /// An application's request is sent as the application's: its name and its desktop entry, not chime's; one
    /// without a desktop entry is named by its id.
    @Test func anApplicationsRequestIsSentAsTheApplications() async throws {
        let harness = try Harness(applicationNames: Names())
        defer { harness.tearDown() }
        for app in ["org.example.Reminders", "org.example.Unlisted"] {
            var delivery = Self.delivery("tea")
            delivery.origin = .application(appID: app, id: "tea")
            try await harness.backend.deliver(delivery, deliveredAt: Date())
        }
        let calls = harness.notifyCalls(count: 2)
        #expect(calls.map { $0["app_name"] as? String } == ["Reminders", "org.example.Unlisted"])
        #expect(
            calls.map { Self.hints($0)["desktop-entry"] } == ["s org.example.Reminders", "s org.example.Unlisted"])
    }

    @Test func aPlainServerGetsNoActionsAndTheBodyAsItIs() async throws {
        let harness = try Harness(capabilities: "body")
        defer { harness.tearDown() }
        let delivery = Self.delivery("plain", title: "Tea") { notification in
            notification.body = "Water <100 °C> & leaves"
            notification.sound = "/usr/share/sounds/chime/kettle.oga"
            notification.urgency = .low
            notification.actions = [.init(key: "snooze", label: "Snooze")]
        }
        try await harness.backend.deliver(delivery, deliveredAt: Date())
        let call = try #require(harness.notifyCalls(count: 1).first)
        #expect(call["app_name"] as? String == "chime")
        #expect(call["app_icon"] as? String == "")
        #expect(call["body"] as? String == "Water <100 °C> & leaves")
        #expect(call["actions"] as? [String] == [])
        #expect(call["expire_timeout"] as? Int == -1)
        #expect(
            Self.hints(call) == [
                "urgency": "y 0", "desktop-entry": "s chime",
                "sound-file": "s /usr/share/sounds/chime/kettle.oga",
            ])
    }

    @Test func aSuppressedSoundSendsNoSoundButSuppressSound() async throws {
        let harness = try Harness()
        defer { harness.tearDown() }
        var delivery = Self.delivery("quiet") { $0.sound = "bell" }
        delivery.isSoundSuppressed = true
        try await harness.backend.deliver(delivery, deliveredAt: Date())
        var named = Self.delivery("named") { $0.sound = "bell" }
        named.isSoundSuppressed = false
        try await harness.backend.deliver(named, deliveredAt: Date())
        let calls = harness.notifyCalls(count: 2)
        try #require(calls.count == 2)
        #expect(
            Self.hints(calls[0]) == [
                "urgency": "y 1", "desktop-entry": "s chime",
                "suppress-sound": "b true",
            ])
        #expect(
            Self.hints(calls[1]) == [
                "urgency": "y 1", "desktop-entry": "s chime",
                "sound-name": "s bell",
            ])
    }

    @Test func aRepeatingNotificationReplacesItsBubbleUntilItIsClosed() async throws {
        let harness = try Harness()
        defer { harness.tearDown() }
        try await harness.backend.deliver(Self.delivery("standup"), deliveredAt: Date())
        try await harness.backend.deliver(Self.delivery("tea"), deliveredAt: Date())
        try await harness.backend.deliver(Self.delivery("standup"), deliveredAt: Date())
        #expect(harness.notifyCalls(count: 3).map { $0["replaces_id"] as? Int } == [0, 0, 1])
        #expect(harness.notifyCalls(count: 3).map { $0["id"] as? Int } == [1, 2, 1])
        // Closed by the user: the next one is a new bubble.
        try await harness.emit("EmitNotificationClosed", 1, reason: 2)
        #expect(harness.answers(count: 1) == [.closed(id: "standup", reason: 2, backend: "desktop")])
        try await harness.backend.deliver(Self.delivery("standup"), deliveredAt: Date())
        #expect(harness.notifyCalls(count: 4).map { $0["replaces_id"] as? Int } == [0, 0, 1, 0])
        #expect(harness.notifyCalls(count: 4).map { $0["id"] as? Int } == [1, 2, 1, 3])
    }

    @Test func aThreadHasOneBubbleThatNewerOnesReplaceCountingTheRest() async throws {
        let harness = try Harness(capabilities: "body,x-dunst-stack-tag,x-canonical-private-synchronous")
        defer { harness.tearDown() }
        func message(_ id: String, _ title: String, thread: String = "chat:alice") -> Delivery {
            Self.delivery(id, title: title) {
                $0.thread = thread
                $0.body = "from Alice"
            }
        }
        try await harness.backend.deliver(message("m1", "Hello"), deliveredAt: Date())
        try await harness.backend.deliver(message("m2", "Lunch?"), deliveredAt: Date())
        try await harness.backend.deliver(message("b1", "Build failed", thread: "ci"), deliveredAt: Date())
        try await harness.backend.deliver(message("m3", "At noon"), deliveredAt: Date())
        let calls = harness.notifyCalls(count: 4)
        #expect(calls.map { $0["replaces_id"] as? Int } == [0, 1, 0, 1])
        #expect(calls.map { $0["id"] as? Int } == [1, 1, 2, 1])
        #expect(calls.map { $0["summary"] as? String } == ["Hello", "Lunch?", "Build failed", "At noon"])
        #expect(
            calls.map { $0["body"] as? String } == [
                "from Alice", "from Alice\nand 1 more", "from Alice", "from Alice\nand 2 more",
            ])
        #expect(Self.hints(calls[0])["x-dunst-stack-tag"] == "s chat:alice")
        #expect(Self.hints(calls[2])["x-canonical-private-synchronous"] == "s ci")
        // What is shown: one bubble per thread, with the latest delivery of each.
        #expect(await harness.backend.shown().map(\.notification.id) == ["b1", "m3"])

        // Closed: the thread starts a new bubble, counting from one again.
        try await harness.emit("EmitNotificationClosed", 1, reason: 2)
        _ = harness.answers(count: 1)
        try await harness.backend.deliver(message("m4", "Bye"), deliveredAt: Date())
        let after = harness.notifyCalls(count: 5)
        #expect(after[4]["replaces_id"] as? Int == 0)
        #expect(after[4]["body"] as? String == "from Alice")
    }

    @Test func aServerWithoutStackingTagsGetsNoneButTheBubbleIsStillReplaced() async throws {
        let harness = try Harness(capabilities: "body")
        defer { harness.tearDown() }
        for id in ["m1", "m2"] {
            try await harness.backend.deliver(Self.delivery(id) { $0.thread = "chat" }, deliveredAt: Date())
        }
        let calls = harness.notifyCalls(count: 2)
        #expect(calls.map { $0["replaces_id"] as? Int } == [0, 1])
        #expect(calls.map { $0["body"] as? String } == ["", "and 1 more"])
        #expect(Self.hints(calls[1])["x-dunst-stack-tag"] == nil)
    }

    @Test func actionsReachTheResponderAndDismissClosesTheBubble() async throws {
        let harness = try Harness()
        defer { harness.tearDown() }
        let delivery = Self.delivery("exam") {
            $0.actions = [.init(key: "open", label: "Open"), .init(key: "dismiss", label: "Dismiss")]
        }
        try await harness.backend.deliver(delivery, deliveredAt: Date())
        try await harness.backend.deliver(Self.delivery("other"), deliveredAt: Date())
        #expect(harness.notifyCalls(count: 2).count == 2)
        try await harness.emit("EmitActionInvoked", 1, key: "open")
        // An id that is not one of ours is ignored.
        try await harness.emit("EmitActionInvoked", 77, key: "open")
        try await harness.emit("EmitActionInvoked", 1, key: "dismiss")
        let answers = harness.answers(count: 3)
        #expect(
            answers == [
                .action(key: "open", id: "exam", backend: "desktop"),
                .action(key: "dismiss", id: "exam", backend: "desktop"),
                .closed(id: "exam", reason: 3, backend: "desktop"),
            ])
        let closes = harness.server?.records.filter { $0["method"] as? String == "CloseNotification" } ?? []
        #expect(closes.map { $0["id"] as? Int } == [1])
    }

    /// A server may answer before its reply to `Notify` has been taken in: the answer still reaches the responder.
    @Test func anAnswerBeforeTheReplyToNotifyIsNotLost() async throws {
        let harness = try Harness(capabilities: nil)
        defer { harness.tearDown() }
        harness.server = try DBusFixture(
            "notification-server", bus: harness.bus, directory: harness.directory,
            arguments: ["--act-before-reply=open"])
        for id in ["exam", "quiz"] {
            try await harness.backend.deliver(Self.delivery(id), deliveredAt: Date())
        }
        let answers = harness.answers(count: 2)
        #expect(
            answers == [
                .action(key: "open", id: "exam", backend: "desktop"),
                .action(key: "open", id: "quiz", backend: "desktop"),
            ])
    }

    @Test func withoutAServerDeliveriesWaitAndArriveWhenOneAppears() async throws {
        let harness = try Harness(capabilities: nil)
        defer { harness.tearDown() }
        var failures: [BackendUnavailable] = []
        for id in ["first", "second"] {
            do {
                try await harness.backend.deliver(Self.delivery(id), deliveredAt: Date())
                Issue.record("\(id) was delivered without a server")
            } catch let error as BackendUnavailable {
                failures.append(error)
            }
        }
        #expect(failures.map(\.isNew) == [true, false])
        #expect(
            failures.first?.reason
                == "no notification server on the session bus (org.freedesktop.DBus.Error.ServiceUnknown: "
                + "The name org.freedesktop.Notifications was not provided by any .service files)")
        #expect(await harness.backend.pendingCount == 2)

        try harness.startServer(capabilities: "body")
        let calls = harness.notifyCalls(count: 2)
        #expect(calls.map { $0["summary"] as? String } == ["Exam: Linear Algebra", "Exam: Linear Algebra"])
        let deadline = ContinuousClock.now + .seconds(10)
        while harness.log.events(.delivered).count < 2 && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(
            harness.log.events(.delivered).map(\.message) == [
                "first: Exam: Linear Algebra (delivered to desktop when the notification server appeared)",
                "second: Exam: Linear Algebra (delivered to desktop when the notification server appeared)",
            ])
        #expect(await harness.backend.pendingCount == 0)
        // Delivering works again, and the next failure would be new.
        try await harness.backend.deliver(Self.delivery("third"), deliveredAt: Date())
        #expect(harness.notifyCalls(count: 3).count == 3)
    }

    @Test func whenTheBusGoesAwayDeliveriesWaitForTheNextOne() async throws {
        let directory = try TemporaryDirectory(prefix: "chime-desktop")
        defer { directory.remove() }
        var bus = try PrivateSessionBus(directory: directory)
        var server = try DBusFixture("notification-server", bus: bus, directory: directory)
        // Without the bus's guid, as a session's address usually is: the next bus at the same path is accepted.
        let context = BackendContext(
            log: RecordingEventLog(), clock: SystemWallClock(), responder: RecordingResponder(),
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(bus.socketPath)"])
        let log = context.log as! RecordingEventLog
        let backend = DesktopBackend(settings: DesktopSettings(), context: context)
        try await backend.deliver(Self.delivery("before"), deliveredAt: Date())
        server.stop()
        bus.stop()
        try FileManager.default.removeItem(atPath: bus.socketPath)

        // The bus is gone: first the connection notices, then connecting fails.
        var failures: [BackendUnavailable] = []
        for id in ["during", "during-too"] {
            do {
                try await backend.deliver(Self.delivery(id), deliveredAt: Date())
                Issue.record("\(id) was delivered without a bus")
            } catch let error as BackendUnavailable {
                failures.append(error)
            }
        }
        #expect(failures.map(\.isNew) == [true, false])

        bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        server = try DBusFixture("notification-server", bus: bus, directory: directory)
        defer { server.stop() }
        let calls = server.waitForRecords(timeout: .seconds(20)) { records in
            records.filter { $0["method"] as? String == "Notify" }.count >= 2
        }.filter { $0["method"] as? String == "Notify" }
        #expect(calls.map { $0["replaces_id"] as? Int } == [0, 0])
        // Logged once the server has answered.
        let deadline = ContinuousClock.now + .seconds(10)
        while log.events(.delivered).count < 2 && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(
            log.events(.delivered).map(\.message) == [
                "during: Exam: Linear Algebra (delivered to desktop when the notification server appeared)",
                "during-too: Exam: Linear Algebra (delivered to desktop when the notification server appeared)",
            ])
    }

    @Test func aServerThatQuitsWithTheCallIsUnavailableAndTheNextOneGetsIt() async throws {
        let harness = try Harness(capabilities: nil)
        defer { harness.tearDown() }
        let holding = try DBusFixture(
            "notification-server", bus: harness.bus, directory: harness.directory, arguments: ["--hold-notify"])
        let backend = harness.backend
        let delivery = Task { try await backend.deliver(Self.delivery("exam"), deliveredAt: Date()) }
        // The server has the call and keeps it unanswered; then it quits.
        let held = holding.waitForRecords { $0.contains { $0["method"] as? String == "Notify" } }
        #expect(held.filter { $0["method"] as? String == "Notify" }.count == 1)
        holding.stop()
        do {
            try await delivery.value
            Issue.record("delivered to a server that quit")
        } catch let error as BackendUnavailable {
            #expect(error.isNew)
            #expect(
                error.reason
                    == "the notification server did not answer (org.freedesktop.DBus.Error.NoReply: Message "
                    + "recipient disconnected from message bus without replying)")
        }
        try harness.startServer(capabilities: "body")
        #expect(harness.notifyCalls(count: 1).map { $0["summary"] as? String } == ["Exam: Linear Algebra"])
    }

    @Test func withoutASessionBusADeliveryIsUnavailable() async throws {
        let context = BackendContext(
            log: RecordingEventLog(), clock: SystemWallClock(), responder: RecordingResponder(),
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/chime-test-bus"])
        let backend = DesktopBackend(settings: DesktopSettings(), context: context)
        var failures: [BackendUnavailable] = []
        for _ in 0..<2 {
            do {
                try await backend.deliver(Self.delivery("exam"), deliveredAt: Date())
            } catch let error as BackendUnavailable {
                failures.append(error)
            }
        }
        #expect(failures.map(\.isNew) == [true, false])
        #expect(
            failures.first?.reason
                == "cannot connect to the session bus at unix:path=/nonexistent/chime-test-bus: sd_bus_start: "
                + "No such file or directory")
        #expect(backend.fallback == "journal")
        let none = DesktopBackend(
            settings: DesktopSettings(),
            context: BackendContext(
                log: RecordingEventLog(), clock: SystemWallClock(), responder: RecordingResponder(), environment: [:]))
        #expect(
            await none.describe()
                == "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
    }

    @Test func describeNamesTheServerAndItsCapabilities() async throws {
        let harness = try Harness(capabilities: "actions,body,body-markup,sound")
        defer { harness.tearDown() }
        #expect(
            await harness.backend.describe()
                == "recorder 1.0 (chime-tests); capabilities: actions, body, body-markup, sound")
    }

    /// Without a session bus (a system service's case) there is nothing to publish to, and nothing to say about it.
    @Test func withoutASessionBusTheBadgeIsNotPublishedAndNothingIsSaid() {
        let told = Locked<[String]>([])
        let badge = UnityLauncherBadge(desktopEntry: "chime", environment: [:]) { reason in
            told.withLock { $0.append(reason) }
        }
        badge.publish(3)
        badge.publish(0)
        #expect(told.withLock { $0 }.isEmpty)
    }

    @Test func theUnityBadgeCountIsSignalledOnTheBus() throws {
        let directory = try TemporaryDirectory(prefix: "chime-badge")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let monitor = try DBusFixture(
            "record-signals", bus: bus, directory: directory,
            arguments: ["--match=type='signal',interface='com.canonical.Unity.LauncherEntry'"])
        defer { monitor.stop() }
        let badge = UnityLauncherBadge(
            desktopEntry: "org.example.Chime", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        badge.publish(1)
        badge.publish(2)
        badge.publish(0)
        let records = monitor.waitForRecords { $0.count >= 3 }
        #expect(records.count == 3)
        for record in records {
            #expect(record["path"] as? String == "/com/canonical/unity/launcherentry/org_2eexample_2eChime")
            #expect(record["interface"] as? String == "com.canonical.Unity.LauncherEntry")
            #expect(record["member"] as? String == "Update")
        }
        let arguments = records.map { $0["arguments"] as? [[String: Any]] ?? [] }
        #expect(
            arguments.map { $0.first?["value"] as? String }
                == Array(repeating: "application://org.example.Chime.desktop", count: 3))
        let properties = arguments.map { ($0.last?["value"] as? [String: Any] ?? [:]).mapValues(Self.typed) }
        #expect(
            properties == [
                ["count": "x 1", "count-visible": "b true"],
                ["count": "x 2", "count-visible": "b true"],
                ["count": "x 0", "count-visible": "b false"],
            ])
    }
}
