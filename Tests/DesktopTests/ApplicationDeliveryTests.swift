import ChimeCore
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

/// What an application hears of its requests, and its badge, follow the focus decision, with the real chimed on a
/// private bus: what quiet hours hold is signalled `Delivered` and counted on the badge only when it is released,
/// what they drop never; a summary of several counts and signals each it stands for.
@Suite(.serialized) struct ApplicationDeliveryTests {
    typealias Session = ApplicationInterfaceTests.Session
    static let app = ApplicationInterfaceTests.app

    @Test(arguments: [["tea"], ["quiz", "tea"]])
    func aHeldRequestIsSignalledAndCountedWhenReleasedAndADroppedOneNever(held ids: [String]) async throws {
        let session = try Session(configuration: "[Daemon]\nDeliver=stdout\n[Focus]\nPassive=drop\n")
        defer { session.stop() }
        let signals = Locked<[String]>([])
        try await session.client.addMatch(
            "type='signal',interface='org.chime.Notifications1',member='Delivered'"
        ) { reader in
            let text = try? "\(reader.readString()) \(reader.readString())"
            signals.withLock { $0.append(text ?? "unreadable") }
        }
        let badge = {
            try await session.call("GetBadge", arguments: { try $0.append(Self.app) }) { try $0.readUInt32() }
        }
        // The first call starts chimed.
        #expect(try await badge() == 0)
        let chimectl = BinaryLocator.path(of: "chimectl")
        let directories = [
            "--user", "--config-dir=\(session.directory.path)/config", "--state-dir=\(session.directory.path)/state",
            "--runtime-dir=\(session.directory.path)/run",
        ]
        let on = try ProcessRunner.run(chimectl, ["quiet", "on"] + directories)
        #expect(on.status == 0, "\(on.standardError)")

        let due = ApplicationInterfaceTests.now + 2
        for (id, level) in ids.map({ ($0, "active") }) + [("news", "passive")] {
            _ = try await session.add(
                id,
                content: [
                    ("Title", .string(id)), ("Badge", .string("+1")), ("InterruptionLevel", .string(level)),
                ], trigger: [("At", .string(ApplicationInterfaceTests.stamp(due)))])
        }
        let held = {
            let output = try? ProcessRunner.run(chimectl, ["quiet", "--json"] + directories).standardOutput
            let object = output.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return object?["held"] as? Int
        }
        #expect(waitFor({ held() == ids.count }, timeout: 15), "\(session.bus.output)")
        // All fired by now: the active held, the passive dropped.
        while ApplicationInterfaceTests.now <= due { usleep(100_000) }
        // Held and dropped: nothing shown, nothing signalled, nothing counted.
        usleep(300_000)
        #expect(session.delivered.isEmpty)
        #expect(signals.withLock { $0 }.isEmpty)
        #expect(try await badge() == 0)

        let off = try ProcessRunner.run(chimectl, ["quiet", "off"] + directories)
        #expect(off.status == 0, "\(off.standardError)")
        // One released as itself, two as a summary of quiet hours standing for both.
        let shown = ids.count == 1 ? "\(Self.app):tea" : ".quiet-summary"
        #expect(waitFor({ session.delivered.contains(shown) }, timeout: 10), "\(session.bus.output)")
        let expected = ids.map { "\(Self.app) \($0)" }
        #expect(
            waitFor({ signals.withLock { $0 }.sorted() == expected }, timeout: 5), "\(signals.withLock { $0 })")
        #expect(try await badge() == UInt32(ids.count))
        #expect(!session.delivered.contains("\(Self.app):news"))
    }
}
