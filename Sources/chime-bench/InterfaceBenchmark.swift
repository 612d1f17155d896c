import ChimeCore
import ChimeSystemd
import Foundation

/// One application's client of `org.chime.Notifications1` at a bus address, timing what an application waits
/// for: the round trip of one `Add` at a time, and a burst of `Add`s in flight together until all are pending.
struct InterfaceBenchmark {
    static let appID = "org.chime.Bench"

    let connection: BusConnection

    init(address: String) throws {
        connection = try BusConnection(address: address, label: "chime-bench.interface")
    }

    /// A one-shot a day ahead, as the transient timers it is measured against.
    func add(_ id: String, at epochSeconds: Int) async throws {
        let reply: Int64 = try await connection.call(
            destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
            interface: "org.chime.Notifications1", member: "Add", timeout: .seconds(600),
            arguments: { writer in
                try writer.append(Self.appID)
                try writer.append(id)
                try writer.append(dictionary: [("Title", .string("Bench \(id)"))])
                try writer.append(dictionary: [("At", .string("@\(epochSeconds)"))])
            }
        ) { try $0.readInt64() }
        guard reply == Int64(epochSeconds) * 1_000_000 else { throw BenchError("Add \(id) answered \(reply)") }
    }

    func pendingCount() async throws -> Int {
        try await connection.call(
            destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
            interface: "org.chime.Notifications1", member: "GetPending", timeout: .seconds(600),
            arguments: { try $0.append(Self.appID) }
        ) { reader in
            try reader.enterContainer("a", contents: "(sa{sv}a{sv}x)")
            var count = 0
            while try reader.peekType() != nil {
                try reader.skip("(sa{sv}a{sv}x)")
                count += 1
            }
            return count
        }
    }

    /// Microseconds of each of `count` `Add`s made one after the other (ids `PREFIX-N`).
    func roundTrips(_ count: Int, prefix: String, at epochSeconds: Int) async throws -> [Double] {
        let clock = ContinuousClock()
        var microseconds: [Double] = []
        for index in 0..<count {
            let elapsed = try await clock.measure { try await add("\(prefix)-\(index)", at: epochSeconds) }
            microseconds.append(Double(elapsed.wholeNanoseconds) / 1000)
        }
        return microseconds
    }

    /// How many `Add`s the burst keeps in flight: under a bus's limit of pending replies per connection (128 in
    /// dbus-daemon's built-in configuration).
    static let window = 100

    /// Milliseconds from the first of `count` `Add`s sent as fast as they are answered (`window` in flight) to the
    /// last answered, and to `GetPending` listing them all after.
    func burst(_ count: Int, prefix: String, at epochSeconds: Int) async throws -> (answered: Double, listed: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                if index >= Self.window { try await group.next() }
                group.addTask { try await add("\(prefix)-\(index)", at: epochSeconds) }
            }
            try await group.waitForAll()
        }
        let answered = clock.now - start
        let pending = try await pendingCount()
        let listed = clock.now - start
        guard pending >= count else { throw BenchError("\(pending) pending after \(count) Adds") }
        return (Double(answered.wholeNanoseconds) / 1e6, Double(listed.wholeNanoseconds) / 1e6)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
