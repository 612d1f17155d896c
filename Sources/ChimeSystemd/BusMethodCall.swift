import CSystemd
import Glibc

/// A method call received on an exported object, to be answered once, from any thread: with a reply carrying
/// what `arguments` appends, or with an error.
///
/// The message is kept (`sd_bus_message_ref`) until the answer is sent, so a call can be answered after work done
/// elsewhere; the answer is sent on the bus queue. A call left unanswered is answered with
/// `org.freedesktop.DBus.Error.NoReply` when it goes away, so that no caller waits for its timeout.
public final class BusMethodCall: @unchecked Sendable {
    /// The unique name of the caller (`:1.42`).
    public let sender: String
    public let path: String
    public let interface: String
    public let member: String
    /// The signature of the arguments (`ssa{sv}a{sv}`).
    public let signature: String
    /// Whether the caller lets the service ask the user to authenticate (`ALLOW_INTERACTIVE_AUTHORIZATION`).
    public let allowsInteractiveAuthorization: Bool
    // Touched only on the bus queue, except in `deinit` (when nobody else holds the call).
    private let message: OpaquePointer
    private let send: @Sendable (@escaping @Sendable () -> Void) -> Void
    private var answered = false

    init(message: OpaquePointer, send: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.message = sd_bus_message_ref(message)
        self.send = send
        sender = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? ""
        path = sd_bus_message_get_path(message).map { String(cString: $0) } ?? ""
        interface = sd_bus_message_get_interface(message).map { String(cString: $0) } ?? ""
        member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        signature = sd_bus_message_get_signature(message, 1).map { String(cString: $0) } ?? ""
        allowsInteractiveAuthorization = sd_bus_message_get_allow_interactive_authorization(message) > 0
    }

    deinit {
        // The message goes back to the bus queue with this call's reference: sd-bus is not thread-safe.
        let held = HeldMessage(pointer: message)
        let answered = self.answered
        send {
            if !answered { Self.sendError(held.pointer, name: "org.freedesktop.DBus.Error.NoReply", text: "no answer") }
            sd_bus_message_unref(held.pointer)
        }
    }

    /// Reads the call's arguments; only while the call is being handled (on the bus queue).
    public func read<Value>(_ body: (inout BusMessageReader) throws -> Value) throws -> Value {
        sd_bus_message_rewind(message, 1)
        var reader = BusMessageReader(message: message)
        return try body(&reader)
    }

    /// Answers with a method return carrying what `arguments` appends.
    public func reply(_ arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void = { _ in }) {
        send { [self] in
            guard !answered else { return }
            answered = true
            var created: OpaquePointer?
            guard sd_bus_message_new_method_return(message, &created) >= 0, let created else { return }
            defer { sd_bus_message_unref(created) }
            var writer = BusMessageWriter(message: created)
            do {
                try arguments(&writer)
                _ = sd_bus_send(nil, created, nil)
            } catch {
                Self.sendError(message, name: "org.freedesktop.DBus.Error.Failed", text: "\(error)")
            }
        }
    }

    /// Answers with the error `name` and its text.
    public func reply(error name: String, _ text: String) {
        send { [self] in
            guard !answered else { return }
            answered = true
            Self.sendError(message, name: name, text: text)
        }
    }

    /// A message reference handed to the bus queue.
    private struct HeldMessage: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private static func sendError(_ message: OpaquePointer, name: String, text: String) {
        var error = sd_bus_error()
        _ = sd_bus_error_set(&error, name, text)
        defer { sd_bus_error_free(&error) }
        _ = sd_bus_reply_method_error(message, &error)
    }
}
