import CSystemd
import ChimeCore
import ChimePlatform
import Dispatch
import Glibc

/// A client connection to a D-Bus bus through sd-bus, driven by dispatch sources on one serial queue.
///
/// sd-bus is not thread-safe: everything that touches the `sd_bus` happens on `queue`. The connection's descriptor
/// is watched by a read source (and a write source while sd-bus has output queued), and `sd_bus_get_timeout`'s
/// deadline by a timer source; each wakes `sd_bus_process` until it has nothing left to do. There is no polling.
///
/// When the peer closes the connection, pending calls fail, the connection closes itself and `onDisconnect` runs
/// (on the queue); a new `BusConnection` is the way to reconnect.
public final class BusConnection: @unchecked Sendable {
    /// The bus address the connection was made to (`unix:path=/run/user/1000/bus`).
    public let address: String
    private let queue: DispatchQueue
    private let onDisconnect: @Sendable () -> Void
    // All of the following only on `queue`.
    private var bus: OpaquePointer?
    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var timerSource: (any DispatchSourceTimer)?
    private let closer: DescriptorCloser

    /// The address of the session bus in `environment`: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`
    /// when that socket exists (as `sd_bus_open_user` does); `nil` when there is neither.
    public static func sessionBusAddress(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        return socketAddress(runtime + "/bus")
    }

    /// The address of the system bus: `DBUS_SYSTEM_BUS_ADDRESS`, else the well-known socket (as
    /// `sd_bus_open_system` does) when it exists; `nil` on a machine without a system bus.
    public static func systemBusAddress(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty { return address }
        return socketAddress("/run/dbus/system_bus_socket")
    }

    /// `unix:path=PATH` when `path` is a socket.
    private static func socketAddress(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=" + path
    }

    /// Connects to the bus at `address` as a bus client (`sd_bus_new`, `sd_bus_set_address`,
    /// `sd_bus_set_bus_client`, `sd_bus_start`).
    ///
    /// The connection is made at once (a missing socket throws here); authentication and `Hello` complete on the
    /// queue, and calls made meanwhile wait for them.
    /// - Parameter onDisconnect: runs on the queue once, when the peer closes the connection (not after `close()`).
    public init(address: String, label: String = "chime.bus", onDisconnect: @escaping @Sendable () -> Void = {})
        throws(SystemdError)
    {
        var created: OpaquePointer?
        try SystemdError.check(sd_bus_new(&created), call: "sd_bus_new")
        guard let bus = created else { throw SystemdError(call: "sd_bus_new", errno: .outOfMemory) }
        do throws(SystemdError) {
            try SystemdError.check(sd_bus_set_address(bus, address), call: "sd_bus_set_address")
            try SystemdError.check(sd_bus_set_bus_client(bus, 1), call: "sd_bus_set_bus_client")
            try SystemdError.check(sd_bus_start(bus), call: "sd_bus_start")
        } catch {
            sd_bus_close_unref(bus)
            throw error
        }
        self.address = address
        self.queue = DispatchQueue(label: label)
        self.onDisconnect = onDisconnect
        self.bus = bus
        self.closer = DescriptorCloser(bus: bus)
        queue.sync { watch(descriptor: sd_bus_get_fd(bus)) }
        queue.async { [weak self] in self?.process() }
    }

    deinit {
        if bus != nil { shutDown() }
    }

    /// Whether the connection is still open (authenticating or running). Waits for the bus queue: not to be asked
    /// from a handler running there.
    public var isOpen: Bool {
        queue.sync { bus.map { sd_bus_is_open($0) > 0 } ?? false }
    }

    /// Closes the connection; pending calls fail with `ECONNRESET`.
    public func close() {
        queue.async { [self] in shutDown() }
    }

    /// Calls a method and decodes its reply (`sd_bus_message_new_method_call`, `sd_bus_call_async`).
    ///
    /// `arguments` and `reply` run on the bus queue.
    /// - Throws: `BusMethodError` for an error reply (a timeout is `org.freedesktop.DBus.Error.NoReply`),
    ///   `SystemdError` when the call cannot be made or the reply not read (`ENOTCONN` on a closed connection,
    ///   `ECONNRESET` when it closes before the reply).
    public func call<Reply: Sendable>(
        destination: String, path: String, interface: String, member: String, timeout: Duration = .seconds(25),
        arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void = { _ in },
        reply decode: @escaping @Sendable (inout BusMessageReader) throws -> Reply
    ) async throws -> Reply {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
            queue.async { [self] in
                do {
                    try startCall(
                        destination: destination, path: path, interface: interface, member: member, timeout: timeout,
                        arguments: arguments
                    ) { reply in
                        continuation.resume(with: Result { try Self.decode(reply, with: decode) })
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Calls `handler` on the queue for every message matching the match rule `rule` (`sd_bus_add_match_async`);
    /// returns once the bus has installed the rule, so that no matching message sent after that is missed.
    ///
    /// The match lasts as long as the connection.
    public func addMatch(_ rule: String, handler: @escaping @Sendable (inout BusMessageReader) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                do {
                    try startMatch(rule, handler: handler) { reply in
                        continuation.resume(with: Result { _ = try Self.decode(reply) { _ in } })
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Sends a signal (`sd_bus_message_new_signal`, `sd_bus_send`). Signals go out in the order of the calls;
    /// `completion` (on the queue) learns whether it was queued for sending.
    public func emitSignal(
        path: String, interface: String, member: String,
        arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void,
        completion: @escaping @Sendable ((any Error)?) -> Void = { _ in }
    ) {
        queue.async { [self] in
            do {
                guard let bus else { throw SystemdError(call: "sd_bus_send", errno: .notConnected) }
                var created: OpaquePointer?
                try SystemdError.check(
                    sd_bus_message_new_signal(bus, &created, path, interface, member), call: "sd_bus_message_new_signal"
                )
                defer { sd_bus_message_unref(created) }
                var writer = BusMessageWriter(message: created!)
                try arguments(&writer)
                try SystemdError.check(sd_bus_send(bus, created, nil), call: "sd_bus_send")
                rearm()
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }

    /// Asks the bus for the well-known `name`, without queueing for it (`RequestName` with
    /// `DBUS_NAME_FLAG_DO_NOT_QUEUE`). Returns whether this connection owns it now.
    public func requestName(_ name: String) async throws -> Bool {
        let answer = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RequestName",
            arguments: { writer in
                try writer.append(name)
                try writer.append(.uint32(4))
            },
            reply: { reader in try reader.readUInt32() })
        // 1: now the primary owner; 4: already was.
        return answer == 1 || answer == 4
    }

    /// Hands every method call to the object at `path` to `handler`, on the bus queue (`sd_bus_add_object`); the
    /// handler answers through the `BusMethodCall`, at once or later from any thread. The object lasts as long
    /// as the connection.
    public func exportObject(path: String, handler: @escaping @Sendable (BusMethodCall) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                continuation.resume(with: Result { try startObject(path: path, handler: handler) })
            }
        }
    }

    private func startObject(path: String, handler: @escaping @Sendable (BusMethodCall) -> Void) throws {
        guard let bus else { throw SystemdError(call: "sd_bus_add_object", errno: .notConnected) }
        let send: @Sendable (@escaping @Sendable () -> Void) -> Void = { [weak self] body in
            guard let self else { return }
            queue.async {
                body()
                self.rearm()
            }
        }
        let box = Unmanaged.passRetained(
            CallbackBox(reply: { _ in }) { message in handler(BusMethodCall(message: message, send: send)) })
        var slot: OpaquePointer?
        let result = sd_bus_add_object(bus, &slot, path, callbackBoxMethod, box.toOpaque())
        guard result >= 0 else {
            box.release()
            throw SystemdError(call: "sd_bus_add_object", errno: Errno(-result))
        }
        own(slot)
    }

    private func startCall(
        destination: String, path: String, interface: String, member: String, timeout: Duration,
        arguments: (inout BusMessageWriter) throws -> Void, reply: @escaping (OpaquePointer?) -> Void
    ) throws {
        guard let bus else { throw SystemdError(call: "sd_bus_call_async", errno: .notConnected) }
        var created: OpaquePointer?
        try SystemdError.check(
            sd_bus_message_new_method_call(bus, &created, destination, path, interface, member),
            call: "sd_bus_message_new_method_call")
        defer { sd_bus_message_unref(created) }
        var writer = BusMessageWriter(message: created!)
        try arguments(&writer)
        let box = Unmanaged.passRetained(CallbackBox(reply: reply))
        var slot: OpaquePointer?
        let result = sd_bus_call_async(
            bus, &slot, created, callbackBoxReply, box.toOpaque(), UInt64(timeout.wholeMicroseconds))
        guard result >= 0 else {
            box.release()
            throw SystemdError(call: "sd_bus_call_async", errno: Errno(-result))
        }
        own(slot)
        rearm()
    }

    private func startMatch(
        _ rule: String, handler: @escaping @Sendable (inout BusMessageReader) -> Void,
        installed: @escaping (OpaquePointer?) -> Void
    ) throws {
        guard let bus else { throw SystemdError(call: "sd_bus_add_match_async", errno: .notConnected) }
        let box = Unmanaged.passRetained(
            CallbackBox(reply: installed) { message in
                var reader = BusMessageReader(message: message)
                handler(&reader)
            })
        var slot: OpaquePointer?
        let result = sd_bus_add_match_async(
            bus, &slot, rule, callbackBoxMessage, callbackBoxReply, box.toOpaque())
        guard result >= 0 else {
            box.release()
            throw SystemdError(call: "sd_bus_add_match_async", errno: Errno(-result))
        }
        own(slot)
        rearm()
    }

    /// Hands a slot to the bus (floating) with a destroy callback that releases its box.
    private func own(_ slot: OpaquePointer?) {
        sd_bus_slot_set_destroy_callback(slot, callbackBoxDestroy)
        sd_bus_slot_set_floating(slot, 1)
        sd_bus_slot_unref(slot)
    }

    /// A reply message as the value `decode` reads from it, or the error it carries.
    private static func decode<Reply>(
        _ reply: OpaquePointer?, with decode: (inout BusMessageReader) throws -> Reply
    ) throws -> Reply {
        guard let reply else { throw SystemdError(call: "sd_bus_call_async", errno: .connectionReset) }
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let error = sd_bus_message_get_error(reply)
            throw BusMethodError(
                name: error?.pointee.name.map { String(cString: $0) } ?? "",
                message: error?.pointee.message.map { String(cString: $0) } ?? "")
        }
        var reader = BusMessageReader(message: reply)
        return try decode(&reader)
    }

    private func watch(descriptor: Int32) {
        let read = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        read.setEventHandler { [weak self] in self?.process() }
        closer.retain(read)
        read.resume()
        readSource = read
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.process() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        timerSource = timer
    }

    /// Runs `sd_bus_process` until it has nothing left to do, then waits for what sd-bus waits for.
    private func process() {
        guard let bus else { return }
        while sd_bus_process(bus, nil) > 0 {}
        if sd_bus_is_open(bus) > 0 {
            rearm()
        } else {
            shutDown()
            onDisconnect()
        }
    }

    /// Watches for writability while sd-bus has output queued, and arms the timer for its next timeout.
    private func rearm() {
        guard let bus else { return }
        let events = sd_bus_get_events(bus)
        if events >= 0 && events & Int32(POLLOUT) != 0 {
            if writeSource == nil {
                let write = DispatchSource.makeWriteSource(fileDescriptor: sd_bus_get_fd(bus), queue: queue)
                write.setEventHandler { [weak self] in self?.process() }
                closer.retain(write)
                write.resume()
                writeSource = write
            }
        } else if let write = writeSource {
            write.cancel()
            writeSource = nil
        }
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else {
            timerSource?.schedule(deadline: .distantFuture)
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        let delay = deadline > nowMicroseconds ? deadline - nowMicroseconds : 0
        timerSource?.schedule(deadline: .now() + .microseconds(Int(min(delay, UInt64(Int.max)))))
    }

    private func shutDown() {
        guard bus != nil else { return }
        bus = nil
        readSource?.cancel()
        readSource = nil
        writeSource?.cancel()
        writeSource = nil
        timerSource?.cancel()
        timerSource = nil
        closer.release()
    }
}

/// Closes and frees the `sd_bus` once its owner is done with it and every dispatch source on its descriptor has
/// been cancelled, so that the descriptor is not closed under a source still registered for it.
private final class DescriptorCloser: @unchecked Sendable {
    private struct Holds {
        var bus: OpaquePointer?
        var count = 1
    }

    private let holds: Locked<Holds>

    init(bus: OpaquePointer) { holds = Locked(Holds(bus: bus)) }

    /// Keeps the descriptor open until `source` has been cancelled.
    func retain(_ source: any DispatchSourceProtocol) {
        holds.withLock { $0.count += 1 }
        source.setCancelHandler { self.release() }
    }

    func release() {
        let last: OpaquePointer? = holds.withLock { holds in
            holds.count -= 1
            guard holds.count == 0 else { return nil }
            defer { holds.bus = nil }
            return holds.bus
        }
        // sd_bus_close_unref: also dispatches the error replies of calls still waiting, through their destroy
        // callbacks.
        if let last { sd_bus_close_unref(last) }
    }
}

/// What an sd-bus callback's userdata points to: the Swift closures for a reply and for each matching message.
private final class CallbackBox {
    private var reply: ((OpaquePointer?) -> Void)?
    private let message: ((OpaquePointer) -> Void)?

    init(reply: @escaping (OpaquePointer?) -> Void, message: ((OpaquePointer) -> Void)? = nil) {
        self.reply = reply
        self.message = message
    }

    /// The reply (of a call, or of the AddMatch that installs a match); `nil` when the slot goes away without one.
    func replied(_ message: OpaquePointer?) {
        let body = reply
        reply = nil
        body?(message)
    }

    func received(_ message: OpaquePointer?) {
        guard let message else { return }
        if let handler = self.message { handler(message) } else { replied(message) }
    }
}

private let callbackBoxReply: sd_bus_message_handler_t = { message, userdata, _ in
    Unmanaged<CallbackBox>.fromOpaque(userdata!).takeUnretainedValue().replied(message)
    return 1
}

private let callbackBoxMessage: sd_bus_message_handler_t = { message, userdata, _ in
    Unmanaged<CallbackBox>.fromOpaque(userdata!).takeUnretainedValue().received(message)
    // 0: other matches and handlers see the message too.
    return 0
}

private let callbackBoxMethod: sd_bus_message_handler_t = { message, userdata, _ in
    Unmanaged<CallbackBox>.fromOpaque(userdata!).takeUnretainedValue().received(message)
    // 1: handled; the handler answers the call itself.
    return 1
}

private let callbackBoxDestroy: sd_bus_destroy_t = { userdata in
    let box = Unmanaged<CallbackBox>.fromOpaque(userdata!).takeRetainedValue()
    box.replied(nil)
}

extension BusConnection {
    /// The object path `prefix/ESCAPED` for an arbitrary identifier (`sd_bus_path_encode`): characters other than
    /// ASCII letters and digits become `_XX` (hex), so any `id` gives a valid, stable path.
    public static func objectPath(prefix: String, id: String) throws(SystemdError) -> String {
        var encoded: UnsafeMutablePointer<CChar>?
        try SystemdError.check(sd_bus_path_encode(prefix, id, &encoded), call: "sd_bus_path_encode")
        defer { free(encoded) }
        return String(cString: encoded!)
    }
}
