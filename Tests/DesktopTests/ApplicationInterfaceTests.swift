import ChimeCore
import ChimeDaemon
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

/// `org.chime.Notifications1` on a private session bus that starts chimed on the first call (bus activation, as a
/// bare dbus-daemon does it): requests added, listed, replaced, removed, delivered and kept across a restart; the
/// errors a caller is told; two applications apart.
@Suite(.serialized) struct ApplicationInterfaceTests {
    static let app = "org.example.Reminders"

    /// A bus whose service directory starts the real chimed --user on the test's own directories.
    struct Session {
        let directory: TemporaryDirectory
        let bus: PrivateSessionBus
        let client: BusConnection

        /// `extraServices`: further bus names the bus starts, each with its command line (an application).
        init(configuration: String = "[Daemon]\nDeliver=stdout\n", extraServices: [String: String] = [:]) throws {
            if PrivateSessionBus.daemonPath == nil { try Test.cancel("Skipped: needs dbus-daemon") }
            directory = try TemporaryDirectory(prefix: "chime-app-interface")
            let chimed = BinaryLocator.path(of: "chimed")
            try directory.write("config/chimed.conf", configuration)
            try directory.write(
                "services/org.chime.Notifications1.service",
                """
                [D-BUS Service]
                Name=org.chime.Notifications1
                Exec=\(chimed) --user --config-dir=\(directory.path)/config --state-dir=\(directory.path)/state \
                --runtime-dir=\(directory.path)/run
                """)
            for (name, command) in extraServices {
                try directory.write("services/\(name).service", "[D-BUS Service]\nName=\(name)\nExec=\(command)\n")
            }
            bus = try PrivateSessionBus(
                directory: directory, serviceDirectory: directory.path + "/services", environment: ["TZ": "UTC"])
            client = try BusConnection(address: bus.address, label: "application")
        }

        /// The recording notification server (Tests/Fixtures/dbus-fixture.py) on this bus, with actions.
        func notificationServer() throws -> DBusFixture {
            try DBusFixture(
                "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=actions,body"])
        }

        func call<Reply: Sendable>(
            _ member: String, arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void,
            reply: @escaping @Sendable (inout BusMessageReader) throws -> Reply = { _ in () }
        ) async throws -> Reply {
            try await client.call(
                destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
                interface: "org.chime.Notifications1", member: member, timeout: .seconds(20), arguments: arguments,
                reply: reply)
        }

        func add(
            _ id: String, app: String = ApplicationInterfaceTests.app, content: [(key: String, value: BusValue)],
            trigger: [(key: String, value: BusValue)]
        ) async throws -> Int64 {
            try await call(
                "Add",
                arguments: { writer in
                    try writer.append(app)
                    try writer.append(id)
                    try writer.append(dictionary: content)
                    try writer.append(dictionary: trigger)
                }, reply: { try $0.readInt64() })
        }

        /// The pending requests of `app`: id, content, trigger and next fire.
        func pending(app: String = ApplicationInterfaceTests.app) async throws -> [Pending] {
            try await call("GetPending", arguments: { try $0.append(app) }) { reader in
                try reader.enterContainer("a", contents: "(sa{sv}a{sv}x)")
                var result: [Pending] = []
                while try reader.peekType() != nil {
                    try reader.enterContainer("r", contents: "sa{sv}a{sv}x")
                    result.append(
                        Pending(
                            id: try reader.readString(), content: try reader.readDictionary(),
                            trigger: try reader.readDictionary(), next: try reader.readInt64()))
                    try reader.exitContainer()
                }
                try reader.exitContainer()
                return result
            }
        }

        /// The ids chimed delivered to stdout (the bus daemon's, which it inherited).
        var delivered: [String] {
            bus.output.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    return nil
                }
                return object["id"] as? String
            }
        }

        /// Stops chimed as its service manager would (SIGTERM to the PID in its PID file); waits for it to go.
        func stopChimed() throws {
            let pidFile = directory.path + "/run/chimed.pid"
            let pid = try #require(
                Int32(
                    try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                ))
            kill(pid, SIGTERM)
            #expect(waitFor({ kill(pid, 0) != 0 }, timeout: 10))
        }

        func stop() {
            if let pid = try? String(contentsOfFile: directory.path + "/run/chimed.pid", encoding: .utf8),
                let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(number, SIGKILL)
            }
            client.close()
            bus.stop()
            directory.remove()
        }
    }

    struct Pending: Sendable {
        var id: String
        var content: [(key: String, value: BusValue)]
        var trigger: [(key: String, value: BusValue)]
        var next: Int64

        func content(_ key: String) -> BusValue? { content.first { $0.key == key }?.value }
        func trigger(_ key: String) -> BusValue? { trigger.first { $0.key == key }?.value }
    }

    static func stamp(_ seconds: Int64) -> String { "@\(seconds)" }
    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    @Test func anApplicationAddsListsAndRemovesItsRequestsAndChimedDeliversThem() async throws {
        let session = try Session()
        defer { session.stop() }
        let signals = Locked<[String]>([])
        try await session.client.addMatch(
            "type='signal',interface='org.chime.Notifications1',member='Delivered'"
        ) { reader in
            let text = try? "\(reader.readString()) \(reader.readString()) \(reader.readInt64())"
            signals.withLock { $0.append(text ?? "unreadable") }
        }
        // The first call starts chimed. The exam is due in an hour while it is listed and the other removed, which
        // take seconds on a busy machine; then it is replaced by one due in two seconds.
        #expect(try await session.pending().isEmpty)
        let content: [(key: String, value: BusValue)] = [
            ("Title", .string("Exam: Linear Algebra")), ("Body", .string("Room 4B")), ("Badge", .string("+1")),
            ("Info", .strings(["room=4B", "course=MA101"])),
        ]
        let inAnHour = Self.now + 3600
        let next = try await session.add("exam", content: content, trigger: [("At", .string(Self.stamp(inAnHour)))])
        #expect(next == inAnHour * 1_000_000)
        let later = try await session.add(
            "later", content: [("Title", .string("Later"))], trigger: [("OnCalendar", .strings(["*-*-* 04:00"]))])
        #expect(later > Self.now * 1_000_000)

        // Listed at once, with what was sent.
        let pending = try await session.pending()
        #expect(pending.map(\.id).sorted() == ["exam", "later"])
        let exam = pending.first { $0.id == "exam" }
        #expect(exam?.content("Title") == .string("Exam: Linear Algebra"))
        #expect(exam?.content("Info") == .strings(["room=4B", "course=MA101"]))
        #expect(exam?.trigger("At") == .strings([Self.stamp(inAnHour)]))
        #expect(exam?.next == inAnHour * 1_000_000)
        // Another application sees none of them.
        #expect(try await session.pending(app: "org.example.Other").isEmpty)

        try await session.call(
            "RemovePending",
            arguments: { writer in
                try writer.append(Self.app)
                try writer.append(strings: ["later", "unknown"])
            })
        #expect(try await session.pending().map(\.id) == ["exam"])

        let due = Self.now + 2
        #expect(
            try await session.add("exam", content: content, trigger: [("At", .string(Self.stamp(due)))]) == due
                * 1_000_000)
        // Delivered on time, then no longer pending, and its file gone.
        #expect(waitFor({ session.delivered.contains("\(Self.app):exam") }, timeout: 10), "\(session.bus.output)")
        // The application hears of it: Delivered(app_id, id, fire_usec).
        #expect(waitFor({ !signals.withLock { $0.isEmpty } }, timeout: 5))
        #expect(signals.withLock { $0 } == ["\(Self.app) exam \(due * 1_000_000)"])
        #expect(try await session.pending().isEmpty)
        let stored = ApplicationRequests(stateDirectory: session.directory.path + "/state")
        #expect(waitFor({ stored.ids(appID: Self.app).isEmpty }, timeout: 5))
    }

    /// What the object says of itself is the interface file installed for developers, word for word.
    @Test func introspectionIsTheInstalledInterfaceFile() async throws {
        let session = try Session()
        defer { session.stop() }
        let xml = try await session.client.call(
            destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
            interface: "org.freedesktop.DBus.Introspectable", member: "Introspect", timeout: .seconds(20),
            reply: { try $0.readString() })
        let file = BinaryLocator.packageRoot.appendingPathComponent("dbus/org.chime.Notifications1.xml")
        #expect(xml == (try String(contentsOf: file, encoding: .utf8)))
    }

    @Test func aBadRequestIsRefusedSayingWhyAndChangesNothing() async throws {
        let session = try Session()
        defer { session.stop() }
        _ = try await session.add(
            "kept", content: [("Title", .string("Kept"))], trigger: [("At", .string(Self.stamp(Self.now + 86_400)))])
        let refusals: [(String, [(key: String, value: BusValue)], [(key: String, value: BusValue)], String)] = [
            (
                "kept", [("Titel", .string("x"))], [("At", .string(Self.stamp(Self.now + 86_400)))],
                "Unknown key 'Titel' in [Notification]. Did you mean 'Title'?"
            ),
            (
                "kept", [("Title", .uint32(3))], [("At", .string(Self.stamp(Self.now + 86_400)))],
                "Wrong type for Title in [Notification]: u, expected a string (s)."
            ),
            (
                "kept", [("Urgency", .string("loud"))], [("At", .string(Self.stamp(Self.now + 86_400)))],
                "Invalid Urgency= 'loud'"
            ),
            (
                "kept", [("ExecAction", .string("open:/bin/sh"))], [("At", .string(Self.stamp(Self.now + 86_400)))],
                "ExecAction is not taken over the bus"
            ),
            (
                "bad/id", [("Title", .string("x"))], [("At", .string(Self.stamp(Self.now + 86_400)))],
                "Invalid id 'bad/id'"
            ),
        ]
        for (id, content, trigger, message) in refusals {
            do {
                _ = try await session.add(id, content: content, trigger: trigger)
                Issue.record("accepted \(content) \(trigger)")
            } catch let error as BusMethodError {
                #expect(error.name == "org.chime.Notifications1.Error.InvalidArgument")
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
        do {
            _ = try await session.add(
                "x", app: "reminders", content: [], trigger: [("At", .string(Self.stamp(Self.now + 86_400)))])
            Issue.record("accepted an app_id that is no desktop-file id")
        } catch let error as BusMethodError {
            #expect(error.message.contains("Invalid app_id 'reminders'"))
        }
        // The request that was there is as it was.
        let pending = try await session.pending()
        #expect(pending.map(\.id) == ["kept"])
        #expect(pending.first?.content("Title") == .string("Kept"))
        // A trigger with nothing ahead: -1, and nothing is kept.
        #expect(
            try await session.add("past", content: [("Title", .string("Past"))], trigger: [("At", .string("@1"))]) == -1
        )
        #expect(try await session.pending().map(\.id) == ["kept"])
    }

    /// schedule.json lists the thousand soonest: an `Add` due after them changes only the count there, so it is
    /// answered without waiting for the file, which follows with the count; one due sooner is listed by the time it
    /// is answered.
    @Test func pastTheThousandListedAnAddIsCountedAndOneSoonerIsListedWhenAnswered() async throws {
        let session = try Session()
        defer { session.stop() }
        let snapshotPath = session.directory.path + "/run/schedule.json"
        func snapshot() -> [String: Any] {
            guard let data = FileManager.default.contents(atPath: snapshotPath) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }
        func listed() -> [String] {
            (snapshot()["scheduled"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        func count() -> Int { snapshot()["scheduled_count"] as? Int ?? -1 }
        let start = Self.now + 86_400
        for index in 0...1_000 {
            _ = try await session.add(
                String(format: "r%04d", index), content: [("Title", .string("R\(index)"))],
                trigger: [("At", .string(Self.stamp(start + Int64(index))))])
        }
        #expect(waitFor({ count() == 1_001 }, timeout: 10), "\(count())")
        #expect(listed().count == 1_000)
        #expect(listed().last == "\(Self.app):r0999")

        // After the thousand listed: counted within the refresh, the listing as it was.
        _ = try await session.add(
            "late", content: [("Title", .string("Late"))], trigger: [("At", .string(Self.stamp(start + 86_400)))])
        #expect(waitFor({ count() == 1_002 }, timeout: 5), "\(count())")
        #expect(listed().count == 1_000 && !listed().contains("\(Self.app):late"))
        // Due with the last listed, but placed after it: not listed either, whatever its id.
        _ = try await session.add(
            "a-tied", content: [("Title", .string("Tied"))], trigger: [("At", .string(Self.stamp(start + 999)))])
        #expect(waitFor({ count() == 1_003 }, timeout: 5), "\(count())")
        #expect(listed().count == 1_000 && !listed().contains("\(Self.app):a-tied"))
        // Sooner than all of them: listed first by the time the call returns, from a listing made anew.
        _ = try await session.add(
            "soon", content: [("Title", .string("Soon"))], trigger: [("At", .string(Self.stamp(Self.now + 3_600)))])
        #expect(listed().first == "\(Self.app):soon")
        #expect(count() == 1_004)
        #expect(listed().count == 1_000 && !listed().contains("\(Self.app):a-tied"))
        #expect(listed().last == "\(Self.app):r0998")
    }

    /// `chimectl add --app` sends the request over the interface, as the application would; `list` shows it.
    @Test func chimectlAddsAsAnApplication() async throws {
        let session = try Session()
        defer { session.stop() }
        let chimectl = BinaryLocator.path(of: "chimectl")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": session.bus.address, "TZ": "UTC"]
        let added = try ProcessRunner.run(
            chimectl,
            ["add", "--app=\(Self.app)", "--id=tea", "--in=1h", "--title=Tea", "--info=kind=green", "--json"],
            environment: environment)
        #expect(added.status == 0, "\(added.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(added.standardOutput.utf8)) as? [String: Any]
        #expect(object?["app"] as? String == Self.app)
        #expect(object?["id"] as? String == "tea")
        let pending = try await session.pending()
        #expect(pending.map(\.id) == ["tea"])
        #expect(pending.first?.content("Info") == .strings(["kind=green"]))
        #expect(
            object?["next"] as? String
                == Timestamp.iso8601(Date(epochMicroseconds: pending[0].next), fraction: .microseconds))
        let listed = try ProcessRunner.run(
            chimectl,
            [
                "list", "--user", "--state-dir=\(session.directory.path)/state",
                "--runtime-dir=\(session.directory.path)/run",
            ], environment: environment)
        #expect(listed.standardOutput.contains("\(Self.app):tea "), "\(listed.standardOutput)")
        let refused = try ProcessRunner.run(
            chimectl, ["add", "--app=reminders", "--in=1h", "--title=Tea"], environment: environment)
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("invalid --app 'reminders'"))
    }

    /// examples/schedule-exam.py, an application in Python with Gio, against the activated chimed: it schedules,
    /// lists, is told why a bad time is refused, and cancels.
    @Test func thePythonExampleSchedulesListsAndCancels() async throws {
        let python = "/usr/bin/python3"
        let gi = try ProcessRunner.run(python, ["-c", "import gi.repository.Gio"])
        if gi.status != 0 { try Test.cancel("Skipped: needs python3-gi") }
        let session = try Session()
        defer { session.stop() }
        let example = BinaryLocator.packageRoot.appendingPathComponent("examples/schedule-exam.py").path
        let environment = ["DBUS_SESSION_BUS_ADDRESS": session.bus.address, "TZ": "UTC"]
        let at = Self.now + 7_200
        let scheduled = try ProcessRunner.run(python, [example, "--at=@\(at)"], environment: environment)
        #expect(scheduled.status == 0, "\(scheduled.standardError)")
        #expect(scheduled.standardOutput.hasPrefix("Scheduled exam: "), "\(scheduled.standardOutput)")
        #expect(scheduled.standardOutput.contains("  pending: exam at "), "\(scheduled.standardOutput)")
        let pending = try await session.pending()
        #expect(pending.map(\.id) == ["exam"])
        #expect(pending.first?.next == at * 1_000_000)
        #expect(pending.first?.content("Badge") == .string("+1"))
        #expect(pending.first?.content("Info") == .strings(["room=4B", "course=MA101"]))
        let refused = try ProcessRunner.run(python, [example, "--at=tomorrow"], environment: environment)
        #expect(refused.status == 1)
        #expect(
            refused.standardError
                == "chime: org.chime.Notifications1.Error.InvalidArgument: At= must be an absolute time; 'tomorrow' "
                + "depends on when the file is read.\n")
        let cancelled = try ProcessRunner.run(python, [example, "--cancel"], environment: environment)
        #expect(cancelled.standardOutput == "Cancelled exam.\n", "\(cancelled.standardError)")
        #expect(try await session.pending().isEmpty)
    }

    /// The badge is the application's: SetBadge/GetBadge and its requests' Badge= change the number on its launcher
    /// entry, and chime's own badge stays as it was.
    @Test func anApplicationHasABadgeOfItsOwn() async throws {
        let session = try Session()
        defer { session.stop() }
        let updates = Locked<[String]>([])
        try await session.client.addMatch(
            "type='signal',interface='com.canonical.Unity.LauncherEntry',member='Update'"
        ) { reader in
            guard let uri = try? reader.readString(), let properties = try? reader.readDictionary() else { return }
            let count = properties.first { $0.key == "count" }?.value
            updates.withLock { $0.append("\(uri) \(count.map { "\($0)" } ?? "-")") }
        }
        try await session.call(
            "SetBadge",
            arguments: { writer in
                try writer.append(Self.app)
                try writer.append(.uint32(3))
            })
        let badge = {
            try await session.call("GetBadge", arguments: { try $0.append(Self.app) }) { try $0.readUInt32() }
        }
        #expect(try await badge() == 3)
        let due = Self.now + 2
        _ = try await session.add(
            "tick", content: [("Title", .string("Tick")), ("Badge", .string("+1"))],
            trigger: [("At", .string(Self.stamp(due)))])
        #expect(waitFor({ session.delivered.contains("\(Self.app):tick") }, timeout: 10), "\(session.bus.output)")
        #expect(session.bus.output.contains(#""badge":4"#), "\(session.bus.output)")
        #expect(try await badge() == 4)
        let uri = "application://\(Self.app).desktop"
        #expect(
            waitFor({ updates.withLock { $0 } == ["\(uri) int64(3)", "\(uri) int64(4)"] }, timeout: 5),
            "\(updates.withLock { $0 })")
        // chime's own badge was not touched.
        #expect(!FileManager.default.fileExists(atPath: session.directory.path + "/state/badge"))
        // Another application's is its own.
        #expect(
            try await session.call("GetBadge", arguments: { try $0.append("org.example.Other") }) {
                try $0.readUInt32()
            } == 0)
    }

    /// The user's answers to an application's bubbles reach the application: an action with the request's Info=,
    /// and a dismissal.
    @Test func theUsersAnswersAreSignalledToTheApplication() async throws {
        let session = try Session()
        defer { session.stop() }
        let server = try session.notificationServer()
        defer { server.stop() }
        let answers = Locked<[String]>([])
        for member in ["ActionInvoked", "Dismissed"] {
            try await session.client.addMatch(
                "type='signal',interface='org.chime.Notifications1',member='\(member)'"
            ) { reader in
                var words = [member]
                while let (type, _) = (try? reader.peekType()) ?? nil {
                    if type == "s" {
                        words.append((try? reader.readString()) ?? "?")
                    } else {
                        try? reader.enterContainer("a", contents: "{ss}")
                        while (try? reader.peekType()) ?? nil != nil {
                            try? reader.enterContainer("e", contents: "ss")
                            words.append("\((try? reader.readString()) ?? "?")=\((try? reader.readString()) ?? "?")")
                            try? reader.exitContainer()
                        }
                        try? reader.exitContainer()
                    }
                }
                answers.withLock { $0.append(words.joined(separator: " ")) }
            }
        }
        let due = Self.now + 2
        for id in ["exam", "quiz"] {
            _ = try await session.add(
                id,
                content: [
                    ("Title", .string(id)), ("Action", .strings(["open:Open"])), ("Deliver", .strings(["desktop"])),
                    ("Info", .strings(["room=4B"])),
                ], trigger: [("At", .string(Self.stamp(due)))])
        }
        let calls = ChimedDesktopTests.notifyCalls(server, 2)
        try #require(calls.count == 2, "\(session.bus.output)")
        let bubbles = ChimedDesktopTests.bubbles(calls)
        try await ChimedDesktopTests.choose("open", on: try #require(bubbles["exam"]), bus: session.bus)
        try await ChimedDesktopTests.close(try #require(bubbles["quiz"]), reason: 2, bus: session.bus)
        #expect(waitFor({ answers.withLock { $0.count } >= 2 }, timeout: 10), "\(answers.withLock { $0 })")
        #expect(
            answers.withLock { $0 }.sorted() == [
                "ActionInvoked \(Self.app) exam open room=4B", "Dismissed \(Self.app) quiz",
            ])
    }

    /// `GetDelivered` lists the bubbles the desktop still shows of the application's requests (what the user or
    /// the server closed is gone); `RemoveDelivered` and `RemoveAllDelivered` close them on the server.
    @Test func theDesktopsBubblesAreListedAndClosed() async throws {
        let session = try Session()
        defer { session.stop() }
        let server = try session.notificationServer()
        defer { server.stop() }
        let due = Self.now + 2
        let content = { (title: String) -> [(key: String, value: BusValue)] in
            [
                ("Title", .string(title)), ("Body", .string("Room 4B")), ("Badge", .string("+1")),
                ("Action", .strings(["open:Open"])), ("Info", .strings(["room=4B"])),
                ("Deliver", .strings(["desktop"])),
            ]
        }
        for id in ["exam", "quiz", "essay"] {
            _ = try await session.add(id, content: content(id), trigger: [("At", .string(Self.stamp(due)))])
        }
        _ = try await session.add(
            "other", app: "org.example.Other", content: content("other"), trigger: [("At", .string(Self.stamp(due)))])
        let calls = ChimedDesktopTests.notifyCalls(server, 4)
        try #require(calls.count == 4, "\(session.bus.output)")
        let bubbles = ChimedDesktopTests.bubbles(calls)

        let delivered = { (app: String) in
            try await session.call("GetDelivered", arguments: { try $0.append(app) }) { reader in
                try reader.enterContainer("a", contents: "(sa{sv}x)")
                var result: [(id: String, content: [(key: String, value: BusValue)], fire: Int64)] = []
                while try reader.peekType() != nil {
                    try reader.enterContainer("r", contents: "sa{sv}x")
                    result.append((try reader.readString(), try reader.readDictionary(), try reader.readInt64()))
                    try reader.exitContainer()
                }
                try reader.exitContainer()
                return result
            }
        }
        // A bubble is chimed's once the server has answered its Notify, which may come just after the server saw it.
        var shown = try await delivered(Self.app)
        let deadline = Date() + 5
        while shown.count < 3 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            shown = try await delivered(Self.app)
        }
        #expect(Set(shown.map(\.id)) == ["exam", "quiz", "essay"])
        #expect(shown.allSatisfy { $0.fire == due * 1_000_000 })
        // The content is what was sent.
        let exam = try #require(shown.first { $0.id == "exam" })
        #expect(exam.content.map(\.key) == content("exam").map(\.key))
        #expect(exam.content.map(\.value) == content("exam").map(\.value))
        #expect(try await delivered("org.example.Other").map(\.id) == ["other"])

        // The user closes one bubble: it is no longer listed.
        let quizBubble = try #require(bubbles["quiz"])
        try await ChimedDesktopTests.close(quizBubble, reason: 2, bus: session.bus)
        #expect(await eventually(timeout: 10) { try await delivered(Self.app).count == 2 })
        #expect(Set(try await delivered(Self.app).map(\.id)) == ["exam", "essay"])

        // The application closes one, then the rest: the server is asked to close each; the other app's stays.
        try await session.call(
            "RemoveDelivered",
            arguments: { writer in
                try writer.append(Self.app)
                try writer.append(strings: ["exam", "unknown"])
            })
        #expect(try await delivered(Self.app).map(\.id) == ["essay"])
        try await session.call("RemoveAllDelivered", arguments: { try $0.append(Self.app) })
        #expect(try await delivered(Self.app).isEmpty)
        #expect(try await delivered("org.example.Other").map(\.id) == ["other"])
        let closes = server.waitForRecords(timeout: .seconds(10)) { records in
            records.filter { $0["method"] as? String == "CloseNotification" }.count >= 2
        }.filter { $0["method"] as? String == "CloseNotification" }.compactMap { $0["id"] as? Int }
        #expect(Set(closes) == [try #require(bubbles["exam"]), try #require(bubbles["essay"])])
    }

    /// The seeds' flow end to end, with examples/exam-reminders.py (a GApplication in Python): it schedules the
    /// exam reminder and exits; the bubble comes; a click on its action makes chimed activate the application
    /// through the session bus, which starts it; it says what it was launched from and clears its badge.
    @Test func aClickLaunchesTheApplicationFromItsNotification() async throws {
        let python = "/usr/bin/python3"
        if try ProcessRunner.run(python, ["-c", "import gi.repository.Gio"]).status != 0 {
            try Test.cancel("Skipped: needs python3-gi")
        }
        let example = BinaryLocator.packageRoot.appendingPathComponent("examples/exam-reminders.py").path
        let session = try Session(
            extraServices: [
                "org.example.Reminders": "\(python) \(example) --gapplication-service"
            ])
        defer { session.stop() }
        let server = try session.notificationServer()
        defer { server.stop() }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": session.bus.address, "TZ": "UTC"]
        let scheduled = try ProcessRunner.run(
            python, [example, "schedule", "--at=@\(Self.now + 2)"], environment: environment)
        #expect(scheduled.status == 0, "\(scheduled.standardError)")
        #expect(scheduled.standardOutput.hasPrefix("Scheduled the exam reminder for "), "\(scheduled.standardOutput)")
        let calls = ChimedDesktopTests.notifyCalls(server, 1)
        let bubble = try #require(calls.first?["id"] as? Int, "\(session.bus.output)")
        #expect(calls.first?["summary"] as? String == "Exam: Linear Algebra")
        let badge = {
            try await session.call("GetBadge", arguments: { try $0.append(Self.app) }) { try $0.readUInt32() }
        }
        #expect(try await badge() == 1)
        try await ChimedDesktopTests.choose("open", on: bubble, bus: session.bus)
        #expect(
            waitFor({ session.bus.output.contains("Badge cleared.") }, timeout: 20), "\(session.bus.output)")
        #expect(session.bus.output.contains("Launched from notification exam: action open; room=4B\n"))
        #expect(try await badge() == 0)
    }

    /// A Flatpak app (here a caller in a bubblewrap sandbox with the `/.flatpak-info` Flatpak gives every app) may
    /// only use its own app_id; the same call from outside a sandbox may use any.
    @Test func aSandboxedApplicationMayOnlyUseItsOwnID() async throws {
        guard let bwrap = ["/usr/bin/bwrap"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            try Test.cancel("Skipped: needs bwrap (bubblewrap)")
        }
        let session = try Session()
        defer { session.stop() }
        try session.directory.write(
            "flatpak-info", "[Application]\nname=org.example.Sandboxed\nruntime=runtime/org.example.Platform\n")
        let tomorrow = "@\(Self.now + 86_400)"
        /// `busctl call … Add APP_ID ID` from inside the sandbox, with the bus socket bound in.
        func addFromSandbox(_ app: String, _ id: String) throws -> ProcessRunner.Output {
            try ProcessRunner.run(
                bwrap,
                [
                    "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                    "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
                    "--bind", session.directory.path, session.directory.path,
                    "--ro-bind", session.directory.path + "/flatpak-info", "/.flatpak-info", "--",
                    "/usr/bin/busctl", "--address=\(session.bus.address)", "call", "org.chime.Notifications1",
                    "/org/chime/Notifications1", "org.chime.Notifications1", "Add", "ssa{sv}a{sv}", app, id,
                    "1", "Title", "s", id, "1", "At", "s", tomorrow,
                ])
        }
        let own = try addFromSandbox("org.example.Sandboxed", "mine")
        #expect(own.status == 0, "\(own.standardError)")
        #expect(own.standardOutput.hasPrefix("x "), "\(own.standardOutput)")
        let other = try addFromSandbox(Self.app, "theirs")
        #expect(other.status != 0)
        #expect(
            other.standardError.contains(
                "The caller runs sandboxed as org.example.Sandboxed and may only use its own app_id, not \(Self.app)."),
            "\(other.standardError)")
        // Refused means unchanged; outside the sandbox any app_id is the user's own.
        #expect(try await session.pending().isEmpty)
        #expect(try await session.pending(app: "org.example.Sandboxed").map(\.id) == ["mine"])
        _ = try await session.add("theirs", content: [("Title", .string("t"))], trigger: [("At", .string(tomorrow))])
        #expect(try await session.pending().map(\.id) == ["theirs"])
    }

    @Test func anApplicationHasAQuotaAndARequestASizeLimit() async throws {
        let session = try Session(configuration: "[Daemon]\nDeliver=stdout\nMaxRequestsPerApp=2\n")
        defer { session.stop() }
        let tomorrow: [(key: String, value: BusValue)] = [("At", .string(Self.stamp(Self.now + 86_400)))]
        for id in ["a", "b"] { _ = try await session.add(id, content: [("Title", .string(id))], trigger: tomorrow) }
        await #expect(
            throws: BusMethodError(
                name: "org.chime.Notifications1.Error.LimitExceeded",
                message: "\(Self.app) has 2 requests pending, the most chimed takes from one application "
                    + "(MaxRequestsPerApp=2 in chimed.conf); remove some first.")
        ) { _ = try await session.add("c", content: [("Title", .string("c"))], trigger: tomorrow) }
        // Replacing one is not one more; another application has a quota of its own.
        _ = try await session.add("a", content: [("Title", .string("A again"))], trigger: tomorrow)
        _ = try await session.add("c", app: "org.example.Other", content: [("Title", .string("c"))], trigger: tomorrow)
        // Each value within its bound, the whole beyond 64 KiB.
        let large = (1...3).map { "part\($0)=" + String(repeating: "x", count: 30_000) }
        await #expect(throws: BusMethodError.self) {
            _ = try await session.add(
                "a", content: [("Title", .string("Large")), ("Info", .strings(large))], trigger: tomorrow)
        }
        do {
            _ = try await session.add(
                "a", content: [("Title", .string("Large")), ("Info", .strings(large))], trigger: tomorrow)
        } catch let error as BusMethodError {
            #expect(error.name == "org.chime.Notifications1.Error.LimitExceeded")
            #expect(error.message.contains("at most 64 KiB are taken"), "\(error.message)")
        }
        #expect(try await session.pending().map(\.id) == ["a", "b"])
        #expect(try await session.pending().first?.content("Title") == .string("A again"))
    }

    @Test func requestsLastAcrossARestartAndTheNextCallStartsChimedAgain() async throws {
        let session = try Session()
        defer { session.stop() }
        _ = try await session.add(
            "tomorrow", content: [("Title", .string("Tomorrow"))],
            trigger: [("At", .string(Self.stamp(Self.now + 86_400)))])
        // Replacing keeps one request of the id.
        _ = try await session.add(
            "tomorrow", content: [("Title", .string("Tomorrow, replaced"))],
            trigger: [("At", .string(Self.stamp(Self.now + 90_000)))])
        try session.stopChimed()
        let pending = try await session.pending()
        #expect(pending.map(\.id) == ["tomorrow"])
        #expect(pending.first?.content("Title") == .string("Tomorrow, replaced"))
        try await session.call("RemoveAllPending", arguments: { try $0.append(Self.app) })
        #expect(try await session.pending().isEmpty)
    }
}
