import Glibc

/// An `errno` value, with Swift names for those chime's code looks for.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's `errno` now.
    public static var current: Errno { Errno(Glibc.errno) }

    public static let interrupted = Errno(EINTR)
    public static let wouldBlock = Errno(EAGAIN)
    public static let textFileBusy = Errno(ETXTBSY)
    public static let noSuchProcess = Errno(ESRCH)
    public static let noSuchFile = Errno(ENOENT)
    public static let noSpace = Errno(ENOSPC)
    public static let invalidArgument = Errno(EINVAL)
    public static let operationNotPermitted = Errno(EPERM)
    public static let outOfMemory = Errno(ENOMEM)
    public static let notConnected = Errno(ENOTCONN)
    public static let connectionReset = Errno(ECONNRESET)
    public static let connectionRefused = Errno(ECONNREFUSED)
    public static let brokenPipe = Errno(EPIPE)
    public static let shutDown = Errno(ESHUTDOWN)

    /// `No space left on device`.
    public var description: String { String(cString: strerror(rawValue)) }
}
