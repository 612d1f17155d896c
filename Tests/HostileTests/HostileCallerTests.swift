import ChimeCore
import ChimeKit
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

/// Calls of `org.chime.Notifications1` that a careless or hostile application makes: each is refused with the
/// error a caller is told, fast, and changes nothing; chimed goes on serving everybody else.
@Suite(.serialized, .enabled(if: HostileBus.unmetRequirement == nil, "skipped: \(HostileBus.unmetRequirement ?? "")"))
struct HostileCallerTests {
    static let app = "org.example.Hostile"

    /// chimed --user on a private bus, and an application's connection to it.
    struct Caller {
        let hostile: HostileBus
        let chimed: RunningProcess
        let client: BusConnection

        init(
            prefix: String, configuration: String = "[Daemon]\nDeliver=stdout\n", busLimits: [String: Int] = [:]
        ) throws {
            hostile = try HostileBus(prefix: prefix, limits: busLimits)
            try hostile.directory.write("config/chimed.conf", configuration)
            chimed = try hostile.startChimed(arguments: ["--user"]).process
            client = try BusConnection(address: hostile.bus.address, label: "hostile.caller")
            // READY=1 comes with the schedule; the name is taken beside it.
            let hostile = hostile
            let named = waitFor(
                {
                    (try? hostile.busctl([
                        "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                        "NameHasOwner", "s", "org.chime.Notifications1",
                    ])) == "b true\n"
                }, timeout: 10)
            try #require(named, "chimed did not take its name: \(chimed.standardError)")
        }

        func stop() {
            client.close()
            chimed.signal(SIGTERM)
            #expect(chimed.wait(timeout: 10) == 0, "\(chimed.standardError)")
            hostile.stop()
        }

        /// `Add(app, id, content, trigger)` with arguments written by `write` after the app_id and id: the
        /// answer's next fire, or the error's name and message.
        func add(
            _ id: String, app: String = HostileCallerTests.app,
            _ write: @escaping @Sendable (inout BusMessageWriter) throws -> Void
        ) async -> Result<Int64, BusMethodError> {
            do {
                return .success(
                    try await client.call(
                        destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
                        interface: "org.chime.Notifications1", member: "Add", timeout: .seconds(60),
                        arguments: { writer in
                            try writer.append(app)
                            try writer.append(id)
                            try write(&writer)
                        }, reply: { try $0.readInt64() }))
            } catch let error as BusMethodError {
                return .failure(error)
            } catch {
                return .failure(BusMethodError(name: "transport", message: "\(error)"))
            }
        }

        func add(
            _ id: String, app: String = HostileCallerTests.app, content: [(key: String, value: BusValue)],
            trigger: [(key: String, value: BusValue)]
        ) async -> Result<Int64, BusMethodError> {
            await add(id, app: app) { writer in
                try writer.append(dictionary: content)
                try writer.append(dictionary: trigger)
            }
        }

        /// The ids `app` has pending.
        func pendingIDs(app: String = HostileCallerTests.app) async throws -> [String] {
            try await client.call(
                destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
                interface: "org.chime.Notifications1", member: "GetPending", arguments: { try $0.append(app) }
            ) { reader in
                try reader.enterContainer("a", contents: "(sa{sv}a{sv}x)")
                var ids: [String] = []
                while try reader.peekType() != nil {
                    try reader.enterContainer("r", contents: "sa{sv}a{sv}x")
                    ids.append(try reader.readString())
                    try reader.skip("a{sv}a{sv}x")
                    try reader.exitContainer()
                }
                try reader.exitContainer()
                return ids
            }
        }
    }

    static var tomorrow: String { "@\(Int(Date().timeIntervalSince1970) + 86_400)" }

    static func expectRefusal(
        _ result: Result<Int64, BusMethodError>, _ name: String, saying message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch result {
        case .success(let next): Issue.record("accepted (next \(next))", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.name == "org.chime.Notifications1.Error.\(name)", sourceLocation: sourceLocation)
            #expect(error.message.contains(message), "\(error.message)", sourceLocation: sourceLocation)
        }
    }

    /// A value of a type `Add` does not take is refused naming the key and the type it got, never left out.
    @Test func everyUnexpectedTypeIsRefusedNamingTheKeyAndTheType() async throws {
        let caller = try Caller(prefix: "hostile-types")
        defer { caller.stop() }
        let tomorrow = Self.tomorrow
        // A nested variant At=.
        Self.expectRefusal(
            await caller.add("nested") { writer in
                try writer.append(dictionary: [("Title", .string("Nested"))])
                try writer.openContainer("a", contents: "{sv}")
                try writer.openContainer("e", contents: "sv")
                try writer.append("At")
                try writer.openContainer("v", contents: "v")
                try writer.append(variant: .string(tomorrow))
                try writer.closeContainer()
                try writer.closeContainer()
                try writer.closeContainer()
            }, "InvalidArgument", saying: "Wrong type for At in [Trigger]: v,")
        // A dictionary Persistent=.
        Self.expectRefusal(
            await caller.add("dictionary") { writer in
                try writer.append(dictionary: [("Title", .string("Dictionary"))])
                try writer.openContainer("a", contents: "{sv}")
                try writer.openContainer("e", contents: "sv")
                try writer.append("At")
                try writer.append(variant: .string(tomorrow))
                try writer.closeContainer()
                try writer.openContainer("e", contents: "sv")
                try writer.append("Persistent")
                try writer.openContainer("v", contents: "a{sv}")
                try writer.append(dictionary: [("yes", .boolean(true))])
                try writer.closeContainer()
                try writer.closeContainer()
                try writer.closeContainer()
            }, "InvalidArgument", saying: "Wrong type for Persistent in [Trigger]: a{sv},")
        // A double Title=.
        Self.expectRefusal(
            await caller.add(
                "double", content: [("Title", .double(2.5))], trigger: [("At", .string(tomorrow))]),
            "InvalidArgument", saying: "Wrong type for Title in [Notification]: d,")
        // Count= as gdbus sends an integer (i) is taken; a negative one is not.
        let counted = await caller.add(
            "counted", content: [("Title", .string("Counted"))],
            trigger: [("OnCalendar", .string("daily")), ("Count", .int32(3))])
        #expect((try? counted.get()) != nil, "\(counted)")
        Self.expectRefusal(
            await caller.add(
                "negative", content: [("Title", .string("Negative"))],
                trigger: [("OnCalendar", .string("daily")), ("Count", .int32(-3))]),
            "InvalidArgument", saying: "Wrong type for Count in [Trigger]: i,")
        #expect(try await caller.pendingIDs() == ["counted"])
    }

    /// Ids and app_ids too long for the request's file are refused up front with their own message, never as a
    /// failure to write the file.
    @Test func idsTooLongAreRefusedUpFrontWithTheLimit() async throws {
        let caller = try Caller(prefix: "hostile-ids")
        defer { caller.stop() }
        let content: [(key: String, value: BusValue)] = [("Title", .string("Long"))]
        let trigger: [(key: String, value: BusValue)] = [("At", .string(Self.tomorrow))]
        for length in [201, 235, 250] {
            Self.expectRefusal(
                await caller.add(String(repeating: "a", count: length), content: content, trigger: trigger),
                "InvalidArgument", saying: "The id is \(length) bytes long; an id may have at most 200.")
        }
        let longApp = "org.example." + String(repeating: "b", count: 100)
        Self.expectRefusal(
            await caller.add(String(repeating: "c", count: 150), app: longApp, content: content, trigger: trigger),
            "InvalidArgument", saying: "app_id and id are 262 bytes together; they may have at most 254.")
        let longest = String(repeating: "d", count: 200)
        #expect((try? await caller.add(longest, content: content, trigger: trigger).get()) != nil)
        #expect(try await caller.pendingIDs() == [longest])
    }

    /// A million actions are refused by counting them.
    @Test func aMillionActionsAreRefusedByCountingThem() async throws {
        let caller = try Caller(prefix: "hostile-actions")
        defer { caller.stop() }
        let actions = (0..<1_000_000).map { "a\($0):A" }
        Self.expectRefusal(
            await caller.add(
                "actions", content: [("Title", .string("Actions")), ("Action", .strings(actions))],
                trigger: [("At", .string(Self.tomorrow))]),
            "InvalidArgument", saying: "1,000,000 values of Action in [Notification]; at most 1,024 are taken.")
        #expect(try await caller.pendingIDs().isEmpty)
    }

    /// `Every=1us` took chimed's memory until the kernel killed it, at every restart: a request that could fire more
    /// often than once a minute is refused, and one stored by hand is refused at load, named, and never run.
    @Test func aRequestFiringMoreOftenThanOnceAMinuteIsRefusedAndNotRunFromTheStateEither() async throws {
        let caller = try Caller(prefix: "hostile-floor")
        defer { caller.stop() }
        for trigger in [
            ("Every", "1us"), ("Every", "30s"), ("OnCalendar", "*:*:0/0.000001"), ("OnCalendar", "*:*:0/10"),
            ("RRule", "FREQ=SECONDLY"),
        ] {
            Self.expectRefusal(
                await caller.add(
                    "often", content: [("Title", .string("Often"))], trigger: [(trigger.0, .string(trigger.1))]),
                "InvalidArgument",
                saying: "\(trigger.0)= '\(trigger.1)' can fire more often than once every 1min, the shortest interval "
                    + "taken (for an application's request).")
        }
        Self.expectRefusal(
            await caller.add(
                "counted", content: [("Title", .string("Counted"))],
                trigger: [("RRule", .string("FREQ=DAILY;COUNT=1000000")), ("From", .string("2026-01-01"))]),
            "InvalidArgument", saying: "has COUNT=1,000,000; at most 10,000 are taken here.")
        #expect(try await caller.pendingIDs().isEmpty)

        // Written by hand (or by an older chimed) into the state directory: refused at the rebuild, with its path.
        let stored = "state/apps/\(Self.app)/often.notification"
        try caller.hostile.directory.write(stored, "[Notification]\nTitle=Often\n[Trigger]\nEvery=1us\n")
        // Beside it, a file larger than any request and a FIFO that would block a reader: each is named, and the
        // rebuild goes on.
        let large = "state/apps/\(Self.app)/large.notification"
        try caller.hostile.directory.write(large, String(repeating: "#\n", count: 1 << 20))
        let fifo = "state/apps/\(Self.app)/fifo.notification"
        try #require(mkfifo(caller.hostile.directory.path + "/" + fifo, 0o600) == 0)
        caller.chimed.signal(SIGHUP)
        #expect(
            waitFor(
                {
                    caller.chimed.standardError.contains(
                        "\(large): File is 2,097,152 bytes, more than the 1 MiB a configuration file may have.")
                        && caller.chimed.standardError.contains("\(fifo): Failed to read file: Not a regular file.")
                }, timeout: 10), "\(caller.chimed.standardError)")
        #expect(
            waitFor(
                {
                    caller.chimed.standardError.contains(
                        "\(stored):4:7: Every= '1us' can fire more often than once every 1min")
                }, timeout: 10), "\(caller.chimed.standardError)")
        usleep(300_000)
        #expect(caller.chimed.standardOutput.isEmpty, "delivered: \(caller.chimed.standardOutput.prefix(300))")
        #expect(try await caller.pendingIDs().isEmpty)
    }

    static func body(_ bytes: Int) -> [(key: String, value: BusValue)] {
        [("Title", .string("Large")), ("Body", .string(String(repeating: "x", count: bytes)))]
    }

    /// All applications' requests together are bounded by chimed.conf (`MaxRequests=`, `MaxRequestBytes=`), as each
    /// application's are (`MaxRequestsPerApp=`, and 16 MiB: `ApplicationRequestQuotaTests`); a request that
    /// replaces another counts only what it adds.
    @Test func allApplicationsTogetherAreBounded() async throws {
        let caller = try Caller(
            prefix: "hostile-quota", configuration: "[Daemon]\nDeliver=stdout\nMaxRequests=20\nMaxRequestBytes=560K\n")
        defer { caller.stop() }
        let trigger: [(key: String, value: BusValue)] = [("At", .string(Self.tomorrow))]
        for index in 0..<8 {
            _ = try await caller.add("r\(index)", content: Self.body(60_000), trigger: trigger).get()
        }
        let other = "org.example.Other"
        _ = try await caller.add("large", app: other, content: Self.body(60_000), trigger: trigger).get()
        Self.expectRefusal(
            await caller.add("large2", app: other, content: Self.body(60_000), trigger: trigger), "LimitExceeded",
            saying: "bytes, more than chimed keeps for all of them (MaxRequestBytes=560 KiB in chimed.conf).")
        // Replaced by a small one: its bytes are given back.
        _ = try await caller.add("large", app: other, content: Self.body(1), trigger: trigger).get()
        _ = try await caller.add("large2", app: other, content: Self.body(60_000), trigger: trigger).get()
        for index in 0..<10 {
            _ = try await caller.add("s\(index)", app: other, content: Self.body(1), trigger: trigger).get()
        }
        Self.expectRefusal(
            await caller.add("t", app: "org.example.Third", content: Self.body(1), trigger: trigger), "LimitExceeded",
            saying:
                "Applications have 20 requests pending, the most chimed takes from all of them (MaxRequests=20 in "
                + "chimed.conf).")
        // Removing makes room again.
        try await caller.client.call(
            destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
            interface: "org.chime.Notifications1", member: "RemoveAllPending", arguments: { try $0.append(other) }
        ) { _ in }
        #expect(
            (try? await caller.add("t", app: "org.example.Third", content: Self.body(1), trigger: trigger).get())
                != nil)
    }

    /// A reply larger than the bus takes (here a bus that takes 1 MiB) costs chimed its connection: it says so and
    /// connects again, and applications are served as before.
    @Test func aLostConnectionIsSaidAndMadeAgain() async throws {
        let caller = try Caller(prefix: "hostile-reconnect", busLimits: ["max_message_size": 1 << 20])
        defer { caller.stop() }
        let trigger: [(key: String, value: BusValue)] = [("At", .string(Self.tomorrow))]
        for index in 0..<20 {
            _ = try await caller.add("r\(index)", content: Self.body(60_000), trigger: trigger).get()
        }
        #expect((try? await caller.pendingIDs()) == nil, "a reply of 1.2 MB went through a bus of 1 MiB")
        #expect(
            waitFor(
                { caller.chimed.standardError.contains("Serving org.chime.Notifications1 again on ") }, timeout: 15),
            "\(caller.chimed.standardError)")
        #expect(caller.chimed.standardError.contains("Lost the connection to the session bus "))
        #expect(
            (try? await caller.add("after", app: "org.example.Other", content: Self.body(1), trigger: trigger).get())
                != nil)
    }

    /// Twenty costly `Add`s at once (a 60 KB body each, slow to read in a debug build) are read off the scheduler's
    /// queue: a notification due every second beside them is delivered on time, each second once.
    @Test func aFloodOfCostlyAddsLeavesDeliveriesOnTime() async throws {
        let caller = try Caller(prefix: "hostile-flood")
        defer { caller.stop() }
        try caller.hostile.directory.write(
            "config/tick.notification", "[Notification]\nTitle=Tick\n[Trigger]\nOnCalendar=*:*:*\n")
        caller.chimed.signal(SIGHUP)
        #expect(waitFor({ caller.chimed.standardOutput.contains("\"tick\"") }, timeout: 10))
        let started = Date()
        let trigger: [(key: String, value: BusValue)] = [("At", .string(Self.tomorrow))]
        let taken = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    (try? await caller.add("flood\(index)", content: Self.body(60_000), trigger: trigger).get()) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let ended = Date()
        #expect(taken == 20)
        usleep(1_500_000)
        let ticks = caller.chimed.standardOutput.split(separator: "\n").compactMap { line -> (fire: Date, at: Date)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["id"] as? String == "tick", object["missed"] == nil,
                let fire = (object["fire_time"] as? String).flatMap(TestDate.iso),
                let at = (object["delivered_at"] as? String).flatMap(TestDate.iso)
            else { return nil }
            return (fire, at)
        }.filter { $0.fire >= started.addingTimeInterval(1) && $0.fire <= ended }
        // Every second of the flood, once, and late by a fraction of a second at most (the scheduler's queue took
        // a whole Add at a time before, so a tick waited for many of them).
        let seconds = ticks.map { Int($0.fire.timeIntervalSince1970) }
        #expect(Set(seconds).count == seconds.count, "\(seconds)")
        if let first = seconds.min(), let last = seconds.max() { #expect(seconds.count == last - first + 1) }
        let lateness = ticks.map { $0.at.timeIntervalSince($0.fire) }
        #expect(lateness.allSatisfy { $0 < 0.5 }, "lateness \(lateness) over \(ended.timeIntervalSince(started)) s")
        #expect(!caller.chimed.standardError.contains("missed"), "\(caller.chimed.standardError)")
    }

    /// An application using ChimeKit believes chimed's signals only from chimed: an `ActionInvoked` or a `Delivered`
    /// another client sends to the application's connection, or broadcasts, is not taken for chimed's.
    @Test func anApplicationBelievesOnlyChimedsSignals() async throws {
        let caller = try Caller(prefix: "hostile-chimekit")
        defer { caller.stop() }
        let center = try NotificationCenter(applicationID: Self.app, busAddress: caller.hostile.bus.address)
        let heard = Locked<[String]>([])
        let deliveries = try await center.deliveries()
        let responses = try await center.responses()
        let listening = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await delivery in deliveries {
                        heard.withLock { $0.append("delivered " + delivery.identifier) }
                    }
                }
                group.addTask {
                    for await response in responses { heard.withLock { $0.append("answered " + response.identifier) } }
                }
            }
        }
        defer { listening.cancel() }
        for pid in [getpid(), nil] as [Int32?] {
            try caller.hostile.forge(
                to: pid, path: "/org/chime/Notifications1", interface: "org.chime.Notifications1",
                member: "ActionInvoked", signature: "sssa{ss}", [Self.app, "forged", "open", "0"])
            try caller.hostile.forge(
                to: pid, path: "/org/chime/Notifications1", interface: "org.chime.Notifications1", member: "Delivered",
                signature: "ssx", [Self.app, "forged", "0"])
        }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 1
        _ = try await caller.add("real", content: [("Title", .string("Real"))], trigger: [("At", .string("@\(due)"))])
            .get()
        #expect(waitFor({ !heard.withLock { $0 }.isEmpty }, timeout: 10))
        usleep(300_000)
        #expect(heard.withLock { $0 } == ["delivered real"])
    }
}
