import ChimeCore

/// The unique name (`:1.42`) that owns a well-known name (`org.freedesktop.login1`) on one connection, so that a
/// signal is believed only from the program that really owns the name.
///
/// A match rule's `sender='org.freedesktop.login1'` is not enough: the bus delivers a signal sent *to* a
/// connection (a unicast signal, with a destination) whatever the rule's sender says, and sd-bus compares a
/// well-known sender loosely. So the owner is read once (`GetNameOwner`) and followed by the bus driver's
/// `NameOwnerChanged`, itself believed only when its sender is the driver (`org.freedesktop.DBus`), which no client
/// can send as.
public final class BusNameOwner: Sendable {
    /// The bus driver's own name, the sender of `NameOwnerChanged`.
    public static let busDriver = "org.freedesktop.DBus"

    /// The well-known name followed.
    public let name: String
    private let owner = Locked<String?>(nil)
    private let changed: @Sendable (_ owner: String?) -> Void

    /// Follows `name` on `bus`: installs the match, then reads the current owner; returns once both are done, so
    /// that `isOwner` answers from then on.
    /// - Parameter changed: runs on the bus queue with the new owner (`nil` when the name has none) each time it
    ///   changes, the first read included.
    public static func follow(
        _ name: String, on bus: BusConnection, changed: @escaping @Sendable (_ owner: String?) -> Void = { _ in }
    ) async throws -> BusNameOwner {
        let follower = BusNameOwner(name: name, changed: changed)
        try await bus.addMatch(
            "type='signal',sender='\(busDriver)',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
                + "member='NameOwnerChanged',arg0='\(name)'"
        ) { [weak follower] reader in
            guard let follower, let newOwner = ownerChange(of: name, in: &reader) else { return }
            follower.set(newOwner.isEmpty ? nil : newOwner)
        }
        // The driver answers in order with its signals: the reply is newer than any change before it, and set on the
        // bus queue before any change after it is handled.
        _ = try? await bus.call(
            destination: busDriver, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: { try $0.append(name) }
        ) { [weak follower] reader in
            follower?.set(try reader.readString())
        }
        return follower
    }

    private init(name: String, changed: @escaping @Sendable (_ owner: String?) -> Void) {
        self.name = name
        self.changed = changed
    }

    /// The unique name that owns the name now; `nil` when nobody does.
    public var current: String? { owner.withLock { $0 } }

    /// Whether `sender` (a message's unique sender name) is the name's owner now.
    public func isOwner(_ sender: String?) -> Bool {
        guard let sender else { return false }
        return owner.withLock { $0 == sender }
    }

    /// The new owner a `NameOwnerChanged (s name, s old_owner, s new_owner)` of `name` announces (empty: none),
    /// or `nil` when the signal is not the bus driver's or not about `name`.
    public static func ownerChange(of name: String, in reader: inout BusMessageReader) -> String? {
        guard reader.sender == busDriver, (try? reader.readString()) == name, (try? reader.readString()) != nil
        else { return nil }
        return try? reader.readString()
    }

    private func set(_ newOwner: String?) {
        let isNew = owner.withLock { owner in
            defer { owner = newOwner }
            return owner != newOwner
        }
        if isNew { changed(newOwner) }
    }
}
