import Glibc

/// The owner and mode of a file, as `fstat(2)` gave them.
struct FileOwnership: Sendable {
    var owner: uid_t
    var mode: mode_t
}
