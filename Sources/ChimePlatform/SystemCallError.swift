import ChimeCore
import Glibc

/// A failed system call of the daemon's own (not libsystemd's): the call's name and its errno.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Errno

    public init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// Converts the "negative errno on failure" convention of the `CChimeShims` helpers into a thrown error.
    /// - Returns: `result`, when it is not negative.
    @discardableResult
    public static func check(_ result: Int32, call: String) throws(SystemCallError) -> Int32 {
        if result < 0 {
            throw SystemCallError(call: call, errno: Errno(-result))
        }
        return result
    }

    public var description: String {
        "\(call): \(errno)"
    }
}
