import ChimeCore
import ChimeDaemon
import ChimePlatform
import Foundation

/// Everything a command reads from or writes to the outside world, so that tests can run commands in-process.
public struct CommandContext: Sendable {
    /// Collects what a command prints; the real program writes it to the file descriptors.
    public final class Stream: Sendable {
        private let buffer = Locked<[UInt8]>([])
        private let sink: (@Sendable ([UInt8]) -> Void)?
        private let bufferLimit: Int

        /// A stream that keeps what is written, for tests.
        public init() {
            sink = nil
            bufferLimit = 0
        }

        /// A stream that hands what is written, as UTF-8, to `sink` once `bufferLimit` bytes have gathered (0: at
        /// once).
        public init(bufferLimit: Int = 65_536, sink: @escaping @Sendable ([UInt8]) -> Void) {
            self.sink = sink
            self.bufferLimit = bufferLimit
        }

        /// Appends `text`; a stream with a sink hands it on once the buffer is full, and at `flush()`.
        public func write(_ text: String) {
            write(bytes: text.utf8)
        }

        /// Appends UTF-8 text given as bytes, as `write(_:)` does.
        public func write(bytes: some Collection<UInt8>) {
            let hasSink = sink != nil
            let limit = bufferLimit
            let (direct, full) = buffer.withLock { buffer -> ([UInt8]?, Bool) in
                // A chunk at least as large as the buffer goes straight on, without a copy.
                if hasSink, buffer.isEmpty, bytes.count >= limit, let whole = bytes as? [UInt8] {
                    return (whole, false)
                }
                buffer.append(contentsOf: bytes)
                return (nil, hasSink && buffer.count >= limit)
            }
            if let direct, let sink {
                sink(direct)
            } else if full {
                flush()
            }
        }

        /// Hands what is buffered to the sink.
        public func flush() {
            guard let sink else { return }
            let pending = buffer.withLock { buffer in
                defer { buffer = [] }
                return buffer
            }
            if !pending.isEmpty { sink(pending) }
        }

        public func line(_ text: String = "") {
            write(text + "\n")
        }

        /// What has been written so far and not yet flushed.
        public var text: String {
            buffer.withLock { String(decoding: $0, as: UTF8.self) }
        }
    }

    public var output: Stream
    public var errors: Stream
    public var environment: [String: String]
    public var now: Date
    public var localZone: ZoneRules
    public var zones: ZoneDatabase

    public init(
        output: Stream, errors: Stream, environment: [String: String], now: Date, localZone: ZoneRules,
        zones: ZoneDatabase = .system
    ) {
        self.output = output
        self.errors = errors
        self.environment = environment
        self.now = now
        self.localZone = localZone
        self.zones = zones
    }

    /// Writes `bytes` to `handle` without copying them into a `Data` first.
    private static func write(_ bytes: [UInt8], to handle: FileHandle) {
        bytes.withUnsafeBytes { raw in
            guard let start = raw.baseAddress, raw.count > 0 else { return }
            handle.write(
                Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: raw.count, deallocator: .none))
        }
    }

    /// The context of the running process: its standard streams, environment, clock and local zone.
    public static func process() -> CommandContext {
        let environment = ProcessInfo.processInfo.environment
        return CommandContext(
            output: Stream { bytes in Self.write(bytes, to: .standardOutput) },
            errors: Stream(bufferLimit: 0) { bytes in Self.write(bytes, to: .standardError) },
            environment: environment,
            now: Date(),
            localZone: LocalZone.resolve(tz: environment["TZ"]))
    }
}

/// Exit statuses of chime's programs (sysexits(3) where it has a name for the case).
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    /// `status` of an instance that is not running (as `systemctl status`).
    case notRunning = 3
    case usage = 64
}
