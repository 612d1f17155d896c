import Glibc

/// The owner and mode of a file, as `fstat(2)` gave them.
public struct FileOwnership: Sendable {
    public var owner: uid_t
    public var mode: mode_t

    public init(owner: uid_t, mode: mode_t) {
        self.owner = owner
        self.mode = mode
    }
}
