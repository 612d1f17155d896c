import Foundation

/// Writes each event as one human line to standard error: the log when no journal is available.
public struct StandardErrorEventLog: EventLog {
    public init() {}

    public func record(_ event: DaemonEvent) {
        FileHandle.standardError.write(Data("chimed: \(event.message)\n".utf8))
    }
}
