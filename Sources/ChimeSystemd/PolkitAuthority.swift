/// Asks polkit (`org.freedesktop.PolicyKit1.Authority` on the system bus) whether a caller of a bus service may do
/// an action, the way systemd's own daemons decide: the subject is the caller's unique bus name, so polkit judges
/// the process behind it, its user and session.
public struct PolkitAuthority: Sendable {
    private let connection: BusConnection

    /// - Parameter connection: the system bus connection the service answers its callers on.
    public init(connection: BusConnection) {
        self.connection = connection
    }

    public enum Decision: Sendable, Equatable {
        case authorized
        /// Not authorised; `challenge` when the caller could be after authenticating (through an agent, with
        /// interaction allowed).
        case refused(challenge: Bool)
    }

    /// polkit's decision on `action` for the bus peer `busName`.
    /// - Parameter interactive: lets polkit ask the user through an authentication agent (the caller set
    ///   `ALLOW_INTERACTIVE_AUTHORIZATION` on its call).
    /// - Throws: when polkit cannot be reached or does not answer (`BusMethodError`, `SystemdError`).
    public func check(_ action: String, busName: String, interactive: Bool) async throws -> Decision {
        let (authorized, challenge) = try await connection.call(
            destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
            interface: "org.freedesktop.PolicyKit1.Authority", member: "CheckAuthorization",
            timeout: .seconds(interactive ? 300 : 25),
            arguments: { writer in
                try writer.openContainer("r", contents: "sa{sv}")
                try writer.append("system-bus-name")
                try writer.append(dictionary: [("name", .string(busName))])
                try writer.closeContainer()
                try writer.append(action)
                try writer.openContainer("a", contents: "{ss}")
                try writer.closeContainer()
                try writer.append(.uint32(interactive ? 1 : 0))
                try writer.append("")
            }
        ) { reader in
            try reader.enterContainer("r", contents: "bba{ss}")
            let authorized = try reader.readBoolean()
            let challenge = try reader.readBoolean()
            return (authorized, challenge)
        }
        return authorized ? .authorized : .refused(challenge: challenge)
    }
}
