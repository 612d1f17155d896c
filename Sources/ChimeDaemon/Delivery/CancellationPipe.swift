import CChimeShims
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

    func fire() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}
