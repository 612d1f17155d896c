import ChimeSystemd
import ChimeTestSupport

extension DBusFixture {
    /// Calls `member` of the recording server's control interface (`org.chime.Test.Control`, Tests/Fixtures/
    /// dbus-fixture.py) on `bus`: what the test has the server do, as a person at the desktop would.
    public static func control(
        _ member: String, bus: PrivateSessionBus, arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void
    ) async throws {
        let control = try BusConnection(address: bus.address, label: "chime.test.control")
        defer { control.close() }
        try await control.call(
            destination: "org.freedesktop.Notifications", path: "/org/chime/Test", interface: "org.chime.Test.Control",
            member: member, arguments: arguments
        ) { _ in }
    }
}
