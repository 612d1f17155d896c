import ChimeSystemd
import ChimeTestSupport
import Dispatch
import Foundation
import Testing

/// `BusConnection` as a service on a private `dbus-daemon`: a well-known name, an exported object whose calls are
/// answered now, later from another thread, with an error, or not at all.
@Suite(.serialized) struct ExportedObjectTests {
    static let name = "org.chime.Test"
    static let path = "/org/chime/Test"

    /// A bus, a service connection that owns `name` and answers at `path`, and a client.
    struct Peers {
        let directory: TemporaryDirectory
        let bus: PrivateSessionBus
        let service: BusConnection
        let client: BusConnection

        func call<Reply: Sendable>(
            _ member: String, _ text: String = "", reply: @escaping @Sendable (inout BusMessageReader) throws -> Reply
        ) async throws -> Reply {
            try await client.call(
                destination: ExportedObjectTests.name, path: ExportedObjectTests.path, interface: "org.chime.Test",
                member: member, timeout: .seconds(5), arguments: { try $0.append(text) }, reply: reply)
        }

        func stop() {
            service.close()
            client.close()
            bus.stop()
            directory.remove()
        }
    }

    func peers() async throws -> Peers {
        if PrivateSessionBus.daemonPath == nil { try Test.cancel("Skipped: needs dbus-daemon") }
        let directory = try TemporaryDirectory(prefix: "chime-bus-object")
        let bus = try PrivateSessionBus(directory: directory)
        let service = try BusConnection(address: bus.address, label: "service")
        try #require(try await service.requestName(Self.name))
        try await service.exportObject(path: Self.path) { call in
            let text = (try? call.read { try $0.readString() }) ?? "?"
            switch call.member {
            case "Echo":
                call.reply { try $0.append("\(call.interface).\(call.member)(\(call.signature)): \(text)") }
            case "Later":
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                    call.reply { try $0.append(text.uppercased()) }
                }
            case "Fail":
                call.reply(error: "org.chime.Test.Error.Refused", "refused: \(text)")
            default:
                // Dropped unanswered.
                break
            }
        }
        let client = try BusConnection(address: bus.address, label: "client")
        return Peers(directory: directory, bus: bus, service: service, client: client)
    }

    @Test func callsAreAnsweredNowLaterOrWithAnError() async throws {
        let peers = try await peers()
        defer { peers.stop() }
        #expect(try await peers.call("Echo", "hello") { try $0.readString() } == "org.chime.Test.Echo(s): hello")
        #expect(try await peers.call("Later", "from elsewhere") { try $0.readString() } == "FROM ELSEWHERE")
        await #expect(throws: BusMethodError(name: "org.chime.Test.Error.Refused", message: "refused: no")) {
            try await peers.call("Fail", "no") { _ in }
        }
    }

    @Test func aCallLeftUnansweredIsAnsweredNoReplyAtOnce() async throws {
        let peers = try await peers()
        defer { peers.stop() }
        let started = ContinuousClock.now
        await #expect(throws: BusMethodError.self) { try await peers.call("Ignore") { _ in } }
        // Well before the call's own 5 s timeout.
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func aNameOwnedByAnotherConnectionIsNotGranted() async throws {
        let peers = try await peers()
        defer { peers.stop() }
        #expect(try await peers.client.requestName(Self.name) == false)
        #expect(try await peers.client.requestName("org.chime.Other") == true)
    }
}
