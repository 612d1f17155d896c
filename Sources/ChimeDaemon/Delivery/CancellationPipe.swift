import CChimeShims
import ChimePlatform
import Glibc

/// A pipe whose read end becomes readable when `fire()` is called: how a task's cancellation reaches the thread
/// that waits in poll(2).
final class CancellationPipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        do {
            try SystemCallError.check(chime_pipe(&ends, 1), call: "pipe2")
        } catch {
            throw CommandStartError.system(error)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Makes the read end readable. A full pipe (EAGAIN: fired before and not drained) is readable already, so
    /// there is no failure the caller could act on.
    func fire() {
        var byte: UInt8 = 1
        _ = SystemCall.retrying { write(writeEnd, &byte, 1) }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}
