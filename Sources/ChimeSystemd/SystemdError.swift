import Glibc

/// An error returned by a libsystemd call: the call's name and the errno it returned negated.
public struct SystemdError: Error, Equatable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// Converts libsystemd's "negative errno on failure" convention into a thrown error.
    public static func check(_ result: Int32, call: String) throws(SystemdError) {
        if result < 0 {
            throw SystemdError(call: call, errno: -result)
        }
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}
