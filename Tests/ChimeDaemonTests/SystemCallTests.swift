import ChimeCore
import ChimeDaemon
import ChimePlatform
import Foundation
import Glibc
import Testing

/// `SystemCall`: a call interrupted by a signal is made again; a failure comes back as its errno.
@Suite struct SystemCallTests {
    @Test func anInterruptedCallIsMadeAgain() {
        var calls = 0
        let result = SystemCall.retrying { () -> Int in
            calls += 1
            guard calls > 2 else {
                errno = EINTR
                return -1
            }
            return 5
        }
        #expect(calls == 3)
        #expect(result == .success(5))
    }

    @Test func aFailureIsItsErrnoOrAThrownErrorNamingTheCall() {
        let result = SystemCall.retrying { () -> Int32 in
            errno = ENOSPC
            return -1
        }
        #expect(result == .failure(.noSpace))
        #expect(throws: SystemCallError(call: "write /state/occurrences.log", errno: Errno(ENOSPC))) {
            try SystemCall.retrying("write /state/occurrences.log") { () -> Int in
                errno = ENOSPC
                return -1
            }
        }
        #expect(Errno.noSpace.description == "No space left on device")
    }

    /// From contiguous storage (an array, a native string) and from bytes that have none (a lazy collection).
    @Test(arguments: ["array", "string", "lazy"])
    func writeAllWritesEveryByte(of kind: String) throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let bytes = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 % 95 + 32) }
        // The pipe holds 64 KiB: everything fits, in however many writes it takes.
        switch kind {
        case "array": try SystemCall.writeAll(ends[1], bytes, call: "write")
        case "string": try SystemCall.writeAll(ends[1], String(decoding: bytes, as: UTF8.self).utf8, call: "write")
        default: try SystemCall.writeAll(ends[1], bytes.lazy.map { $0 }, call: "write")
        }
        close(ends[1])
        var read: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = Glibc.read(ends[0], &buffer, buffer.count)
            guard count > 0 else { break }
            read += buffer[..<count]
        }
        #expect(read == bytes)
    }
}
