import ChimeCore
import ChimeSystemd
import Foundation

extension ApplicationInterface {
    /// A method of the interface: the arguments it takes, the access a caller needs (polkit's action on the system
    /// bus), and how a call is read: the application it names, and the work that asks the center and replies.
    struct Member: Sendable {
        var signature: String
        var access: CallerAuthorization.Access
        var read: @Sendable (BusMethodCall, ApplicationCenter) throws -> (appID: String, work: @Sendable () -> Void)
    }

    /// Every method of `org.chime.Notifications1` (dbus/org.chime.Notifications1.xml, DESIGN.md).
    static let members: [String: Member] = [
        "Add": Member(signature: "ssa{sv}a{sv}", access: .manage) { call, center in
            let (app, id, content, trigger) = try call.read { reader in
                (
                    try reader.readString(), try reader.readString(), try reader.readDictionary(),
                    try reader.readDictionary()
                )
            }
            return (
                app,
                {
                    center.add(appID: app, id: id, content: content, trigger: trigger) { result in
                        // Microseconds since the epoch on the wire; -1 when nothing is ahead.
                        reply(call, result) { writer, next in
                            try writer.append(.int64(next?.epochMicroseconds ?? -1))
                        }
                    }
                }
            )
        },
        "GetPending": Member(signature: "s", access: .read) { call, center in
            let app = try call.read { try $0.readString() }
            return (app, { center.pending(appID: app) { call.reply(writing: $0) } })
        },
        "RemovePending": Member(signature: "sas", access: .manage) { call, center in
            let (app, ids) = try call.read { reader in (try reader.readString(), try reader.readStrings()) }
            return (app, { center.removePending(appID: app, ids: ids) { call.reply() } })
        },
        "RemoveAllPending": Member(signature: "s", access: .manage) { call, center in
            let app = try call.read { try $0.readString() }
            return (app, { center.removePending(appID: app, ids: nil) { call.reply() } })
        },
        "GetDelivered": Member(signature: "s", access: .read) { call, center in
            let app = try call.read { try $0.readString() }
            return (app, { center.delivered(appID: app) { call.reply(writing: $0) } })
        },
        "RemoveDelivered": Member(signature: "sas", access: .manage) { call, center in
            let (app, ids) = try call.read { reader in (try reader.readString(), try reader.readStrings()) }
            return (app, { center.removeDelivered(appID: app, ids: ids) { call.reply() } })
        },
        "RemoveAllDelivered": Member(signature: "s", access: .manage) { call, center in
            let app = try call.read { try $0.readString() }
            return (app, { center.removeDelivered(appID: app, ids: nil) { call.reply() } })
        },
        "Acknowledge": Member(signature: "sas", access: .manage) { call, center in
            let (app, ids) = try call.read { reader in (try reader.readString(), try reader.readStrings()) }
            return (app, { center.acknowledge(appID: app, ids: ids) { call.reply() } })
        },
        "SetBadge": Member(signature: "su", access: .manage) { call, center in
            let (app, count) = try call.read { reader in (try reader.readString(), try reader.readUInt32()) }
            return (app, { center.setBadge(appID: app, count: count) { reply(call, $0) { _, _ in } } })
        },
        "GetBadge": Member(signature: "s", access: .read) { call, center in
            let app = try call.read { try $0.readString() }
            return (app, { center.badge(appID: app) { count in call.reply { try $0.append(.uint32(count)) } } })
        },
        "GetSettings": Member(signature: "s", access: .read) { call, center in
            let app = try call.read { try $0.readString() }
            return (
                app, { center.settings(appID: app) { settings in call.reply { try $0.append(dictionary: settings) } } }
            )
        },
    ]

    /// Replies with the answer `write` writes, or with the refusal's error.
    private static func reply<Answer: Sendable>(
        _ call: BusMethodCall, _ result: Result<Answer, ApplicationCenter.Refusal>,
        write: @escaping @Sendable (inout BusMessageWriter, Answer) throws -> Void
    ) {
        switch result {
        case .success(let answer): call.reply { try write(&$0, answer) }
        case .failure(.invalidArgument(let message)): call.reply(error: Failure.invalidArgument.name, message)
        case .failure(.limitExceeded(let message)): call.reply(error: Failure.limitExceeded.name, message)
        case .failure(.failed(let message)): call.reply(error: "org.freedesktop.DBus.Error.Failed", message)
        }
    }
}

extension BusMethodCall {
    /// Replies with the pending requests, `a(sa{sv}a{sv}x)`.
    fileprivate func reply(writing pending: [ApplicationCenter.Pending]) {
        reply { writer in
            try writer.openContainer("a", contents: "(sa{sv}a{sv}x)")
            for request in pending {
                try writer.openContainer("r", contents: "sa{sv}a{sv}x")
                try writer.append(request.id)
                try writer.append(dictionary: request.content)
                try writer.append(dictionary: request.trigger)
                try writer.append(.int64(request.next.epochMicroseconds))
                try writer.closeContainer()
            }
            try writer.closeContainer()
        }
    }

    /// Replies with the shown notifications, `a(sa{sv}x)`.
    fileprivate func reply(writing delivered: [ApplicationCenter.Shown]) {
        reply { writer in
            try writer.openContainer("a", contents: "(sa{sv}x)")
            for notification in delivered {
                try writer.openContainer("r", contents: "sa{sv}x")
                try writer.append(notification.id)
                try writer.append(dictionary: notification.content)
                try writer.append(.int64(notification.fire.epochMicroseconds))
                try writer.closeContainer()
            }
            try writer.closeContainer()
        }
    }
}
