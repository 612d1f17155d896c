import ChimeCore
import ChimePlatform

/// An error returned by a libsystemd call: the call's name and the errno it returned negated.
public struct SystemdError: Error, Equatable, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Errno

    public init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// Converts libsystemd's "negative errno on failure" convention into a thrown error.
    public static func check(_ result: Int32, call: String) throws(SystemdError) {
        if result < 0 {
            throw SystemdError(call: call, errno: Errno(-result))
        }
    }

    public var description: String {
        "\(call): \(errno)"
    }
}
