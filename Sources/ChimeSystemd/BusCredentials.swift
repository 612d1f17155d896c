import Glibc

/// Who a bus peer is, as the bus daemon vouches for it (`GetConnectionCredentials`): what a service decides access
/// by, never by what a caller says of itself.
public struct BusCredentials: Sendable, Equatable {
    public var uid: uid_t
    public var pid: pid_t

    public init(uid: uid_t, pid: pid_t) {
        self.uid = uid
        self.pid = pid
    }
}

extension BusConnection {
    /// The credentials of the peer whose unique name is `busName` (`:1.42`).
    /// - Throws: `BusMethodError` when the bus does not know the peer (it left) or gives no user or process id.
    public func credentials(of busName: String) async throws -> BusCredentials {
        let entries = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionCredentials", arguments: { try $0.append(busName) }
        ) { try $0.readDictionary() }
        func number(_ key: String) -> UInt32? {
            guard case .uint32(let value) = entries.first(where: { $0.key == key })?.value else { return nil }
            return value
        }
        guard let uid = number("UnixUserID"), let pid = number("ProcessID") else {
            throw BusMethodError(
                name: "org.freedesktop.DBus.Error.Failed", message: "the bus gives no user and process id of \(busName)"
            )
        }
        return BusCredentials(uid: uid, pid: pid_t(bitPattern: pid))
    }
}
