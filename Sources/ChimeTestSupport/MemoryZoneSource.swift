import ChimeCore
import Foundation

/// Zone files held in memory, for a `ZoneDatabase` in tests: what they are, and how often each was read.
public final class MemoryZoneSource: ZoneSource, Sendable {
    public let directory = "/memory/zoneinfo"
    private let state: Locked<(files: [String: [UInt8]], reads: [String: Int])>

    /// - Parameter files: the bytes of each zone file, by name (`Europe/Berlin`).
    public init(_ files: [String: [UInt8]]) {
        state = Locked((files, [:]))
    }

    public func isZoneFile(_ name: String) -> Bool {
        state.withLock { $0.files[name]?.starts(with: Array("TZif".utf8)) ?? false }
    }

    public func contents(of name: String) -> [UInt8]? {
        state.withLock { state in
            state.reads[name, default: 0] += 1
            return state.files[name]
        }
    }

    public func zoneNames() -> [String] {
        state.withLock { $0.files.keys.sorted() }
    }

    /// Replaces (or, with `nil`, removes) a file.
    public func set(_ name: String, _ bytes: [UInt8]?) {
        state.withLock { $0.files[name] = bytes }
    }

    /// How often `contents(of:)` was asked for `name`.
    public func reads(of name: String) -> Int {
        state.withLock { $0.reads[name] ?? 0 }
    }
}
