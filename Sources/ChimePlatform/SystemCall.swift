import ChimeCore
import Glibc

/// The one way the daemon's code makes a libc call that can be interrupted: a call that fails with `EINTR` (a
/// signal arrived meanwhile) is made again, and a failure comes back as the `Errno` it left.
public enum SystemCall {
    /// Calls `body`, a libc call with the convention "-1 and `errno`", again while it fails with `EINTR`.
    /// - Returns: what it returned, or the errno of its failure.
    public static func retrying<Value: SignedInteger>(_ body: () -> Value) -> Result<Value, Errno> {
        while true {
            let value = body()
            guard value == -1 else { return .success(value) }
            let failure = Errno.current
            guard failure != .interrupted else { continue }
            return .failure(failure)
        }
    }

    /// As `retrying(_:)`, throwing a failure as a `SystemCallError` naming `call`.
    @discardableResult
    public static func retrying<Value: SignedInteger>(
        _ call: @autoclosure () -> String, _ body: () -> Value
    ) throws(SystemCallError) -> Value {
        switch retrying(body) {
        case .success(let value): return value
        case .failure(let failure): throw SystemCallError(call: call(), errno: failure)
        }
    }

    /// Writes all of `bytes` to `descriptor` with `write(2)`, however many calls that takes.
    public static func writeAll(
        _ descriptor: Int32, _ bytes: some Collection<UInt8>, call: @autoclosure () -> String
    ) throws(SystemCallError) {
        // From the bytes' own storage where they have one (a native string's): a snapshot of a MiB was copied, and
        // the copy mapped and given back, at every write.
        let written = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(SystemCallError) in
                try writeAll(descriptor, UnsafeRawBufferPointer(buffer), call: call())
            }
        }
        guard let written else { return try writeAll(descriptor, Array(bytes), call: call()) }
        try written.get()
    }

    private static func writeAll(
        _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, call: @autoclosure () -> String
    ) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try retrying(call()) { write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
        }
    }
}
