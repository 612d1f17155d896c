import ChimeCore
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Glibc
import Testing

@testable import ChimeDaemon

/// Who calls the application interface: the sandbox a process runs in, read from its root, and the callers looked
/// up once each with their calls kept in order.
struct CallerIdentityTests {
    @Test func aProcessInAFlatpakSandboxIsKnownByItsInfoFile() throws {
        let proc = try TemporaryDirectory(prefix: "chime-proc")
        defer { proc.remove() }
        try proc.write(
            "100/root/.flatpak-info", "[Application]\nname=org.example.Sandboxed\n\n[Instance]\nbranch=stable\n")
        try proc.write("101/root/usr/.keep", "")
        try proc.write("102/root/.flatpak-info", "[Instance]\nbranch=stable\n")
        #expect(try SandboxIdentity.appID(ofProcess: 100, proc: proc.path) == "org.example.Sandboxed")
        // A root without the file: not sandboxed.
        #expect(try SandboxIdentity.appID(ofProcess: 101, proc: proc.path) == nil)
        // A file that names no application, and a process that is gone: cannot tell, which refuses.
        #expect(throws: SandboxIdentityError.self) { try SandboxIdentity.appID(ofProcess: 102, proc: proc.path) }
        #expect(throws: SandboxIdentityError.self) { try SandboxIdentity.appID(ofProcess: 103, proc: proc.path) }
        // This test runs in no sandbox.
        #expect(try SandboxIdentity.appID(ofProcess: getpid()) == nil)
    }

    @Test func aCallerIsLookedUpOnceAndItsCallsKeepTheirOrder() async throws {
        let lookups = Locked<[String]>([])
        let released = Locked(false)
        let identities = CallerIdentities { busName in
            lookups.withLock { $0.append(busName) }
            while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
            if busName == ":1.9" {
                throw BusMethodError(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: "gone")
            }
            return .init(credentials: BusCredentials(uid: 1000, pid: 42), sandboxedAppID: nil)
        }
        let handled = Locked<[String]>([])
        let done = AsyncStream.makeStream(of: Void.self)
        for call in 1...3 {
            identities.with(":1.5") { result in
                handled.withLock { $0.append("\(call):\((try? result.get())?.credentials.pid ?? -1)") }
                done.continuation.yield()
            }
        }
        identities.with(":1.9") { result in
            handled.withLock { $0.append("gone:\((try? result.get()) == nil)") }
            done.continuation.yield()
        }
        #expect(handled.withLock { $0 }.isEmpty)
        released.withLock { $0 = true }
        var finished = 0
        for await _ in done.stream {
            finished += 1
            if finished == 4 { break }
        }
        #expect(handled.withLock { $0.filter { !$0.hasPrefix("gone") } } == ["1:42", "2:42", "3:42"])
        #expect(handled.withLock { $0.contains("gone:true") })
        // Known now: at once, without another lookup; the failed one is asked again.
        identities.with(":1.5") { _ in handled.withLock { $0.append("4") } }
        #expect(handled.withLock { $0.last } == "4")
        #expect(lookups.withLock { $0.sorted() } == [":1.5", ":1.9"])
        identities.with(":1.9") { _ in }
        #expect(await eventually(timeout: 5) { lookups.withLock { $0.count } == 3 })
    }
}
