import Foundation

/// The requests of `chimectl add`: notification files in the state directory (`DaemonOptions.addedDirectory`).
///
/// A request with nothing left to fire (a delivered one-shot, an exhausted `Count=`) is removed, so that the
/// directory holds what is still to come, as `GetPending` of an app would list it: a finished request is no longer
/// loaded, listed or cancelled.
public struct AddedRequests: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Whether a notification loaded from `source` is a request.
    public func contains(_ source: String) -> Bool {
        source.hasPrefix(directory + "/")
    }

    /// Removes the request files among `sources`; a file already gone is fine.
    /// - Returns: the ones removed.
    @discardableResult
    public func removeFinished(_ sources: [String]) -> [String] {
        sources.filter { contains($0) && unlink($0) == 0 }
    }
}
