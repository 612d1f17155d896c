import ChimeCore
import Foundation

/// A stand-in for systemd's notification socket: a datagram socket whose path goes into `NOTIFY_SOCKET`, so a
/// test can see exactly what a service sends with `sd_notify`.
public final class NotifySocket: Sendable {
    public let path: String
    private let fd: Int32

    public init(directory: String) throws {
        path = directory + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next message, or `nil` if none arrives within `timeout` seconds.
    public func receive(timeout: Double) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Messages until one satisfies `predicate` (returned last), or until `timeout` seconds pass in total.
    public func receive(until predicate: (String) -> Bool, timeout: Double) -> [String] {
        // Monotonic: the tests that step the wall clock wait here too.
        let deadline = ContinuousClock.now + .seconds(timeout)
        var messages: [String] = []
        while true {
            let left = deadline - .now
            guard left > .zero, let message = receive(timeout: left.timeInterval) else { break }
            messages.append(message)
            if predicate(message) { break }
        }
        return messages
    }
}
