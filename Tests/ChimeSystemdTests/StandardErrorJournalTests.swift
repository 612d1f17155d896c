import Foundation
import Glibc
import Testing

@testable import ChimeSystemd

/// `JOURNAL_STREAM` is trusted only when it names the file that standard error is.
@Suite struct StandardErrorJournalTests {
    /// `DEVICE:INODE` of the open file `descriptor`.
    static func identity(of descriptor: Int32) -> String {
        var status = stat()
        precondition(fstat(descriptor, &status) == 0)
        return "\(status.st_dev):\(status.st_ino)"
    }

    @Test func matchingStandardErrorIsTheJournal() {
        let environment = ["JOURNAL_STREAM": Self.identity(of: STDERR_FILENO)]
        #expect(JournalWriter.isStandardErrorJournal(environment: environment))
    }

    @Test func otherFileIsNot() throws {
        let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let devNull = Self.identity(of: descriptor)
        #expect(JournalWriter.isJournalStream(devNull, descriptor: descriptor))
        #expect(!JournalWriter.isJournalStream(Self.identity(of: STDERR_FILENO), descriptor: descriptor))
    }

    @Test(arguments: ["", "garbage", "1:", ":1", "1:2:3", "-1:-1", " 1:2", "0x1:2"])
    func malformedValueIsNot(value: String) {
        #expect(!JournalWriter.isStandardErrorJournal(environment: ["JOURNAL_STREAM": value]))
    }

    @Test func missingVariableIsNot() {
        #expect(!JournalWriter.isStandardErrorJournal(environment: [:]))
    }
}
