import Foundation

/// The requests of `chimectl add` and of applications: notification files in the state directory
/// (`DaemonOptions.addedDirectory`, `ApplicationRequests`).
///
/// A request with nothing left to fire (a delivered one-shot, an exhausted `Count=`) is removed, so that the
/// directory holds what is still to come, as `GetPending` of an app would list it: a finished request is no longer
/// loaded, listed or cancelled.
public struct AddedRequests: Sendable {
    public let directories: [String]

    public init(directories: [String]) {
        self.directories = directories
        prefixes = directories.map { $0 + "/" }
    }

    /// The directories with a slash: asked for every notification of every rebuild, made once.
    private let prefixes: [String]

    /// Whether a notification loaded from `source` is a request.
    public func contains(_ source: String) -> Bool {
        prefixes.contains { source.hasPrefix($0) }
    }

    /// Removes the request files among `sources`; a file already gone is fine.
    /// - Returns: the ones removed.
    @discardableResult
    public func removeFinished(_ sources: [String]) -> [String] {
        sources.filter { contains($0) && unlink($0) == 0 }
    }
}
