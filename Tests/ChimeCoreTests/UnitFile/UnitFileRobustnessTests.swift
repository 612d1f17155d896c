import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

@Suite struct UnitFileRobustnessTests {
    /// Pieces that matter to the grammar, plus bytes that are not UTF-8 on their own.
    private static let tokens: [[UInt8]] =
        [
            "[", "]", "[Notification]", "[Trigger]", "=", "\\", "\\\\", "\n", "\r", "\r\n", "\n\r", "\0", "#", ";",
            " ", "\t", "\"", "'", "Title", "Action", "ExecAction", "value", "é", "😀", "\u{FEFF}", "\u{7F}", "\\x",
            "\\u", "\\U", "\\0", "41", "ff", "D800", "0", "7", "\\s", "\\n", "\\q", "open:/bin/echo \"a b\"",
        ].map { Array($0.utf8) } + [[0xFF], [0xC3], [0x80], [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xF4, 0x90, 0x80]]

    private static let corpus: [[UInt8]] = [
        "# /etc/chime/exam.notification\n[Notification]\nTitle=Exam: Linear Algebra\nBody=Starts today at 09:00, \\\n"
            + "  room 4B\nAction=open:Open\nAction=\nExecAction=open:xdg-open 'https://example.org/a b' \\x41\n\n"
            + "[Trigger]\nAt=2026-12-01 07:00\nTimeZone=Asia/Tokyo\n",
        "\u{FEFF}[Notification]\r\nTitle = Tea \r\n; comment\r\nSound=default\r\n[Trigger]\r\nOnCalendar=*-*-* 16:00\r\n",
        "[Notification]\nTitle=Long\\\n# skipped\n; skipped\\\n   value\nInfo=kind=exam\n[Trigger]\nEvery=1h\nCount=3\n",
    ].map { Array($0.utf8) }

    @Test func survivesRandomAndMutatedInput() {
        var generator = SeededRandomNumberGenerator(seed: 0x5EED_C41E)
        var entries = 0
        var errors = 0
        var splitWords = 0
        var splitErrors = 0
        for round in 0..<20_000 {
            let bytes =
                round.isMultiple(of: 2)
                ? Self.soup(using: &generator) : Self.mutate(Self.corpus.randomElement(using: &generator)!, &generator)
            let path = "r\(round)"
            let file = UnitFile(parsing: Data(bytes), path: path)
            let lineCount = 1 + bytes.count { $0 == 0x0A || $0 == 0x0D || $0 == 0 }
            for diagnostic in file.diagnostics {
                guard Self.isWithin(diagnostic.location, path: path, lineCount: lineCount) else {
                    Issue.record("round \(round): \(diagnostic) outside the input")
                    return
                }
            }
            errors += file.diagnostics.count
            for section in file.sections {
                if section.name.unicodeScalars.contains(where: {
                    $0.value < 0x20 || "\"'\\\u{7F}".unicodeScalars.contains($0)
                }) {
                    Issue.record("round \(round): unsafe section name \(section.name.debugDescription)")
                    return
                }
                for entry in section.entries {
                    entries += 1
                    guard Self.isTrimmed(entry.key, allowEmpty: false), !entry.key.contains("="),
                        Self.isTrimmed(entry.value, allowEmpty: true),
                        !entry.value.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }),
                        Self.isWithin(entry.location, path: path, lineCount: lineCount),
                        Self.isWithin(entry.valueLocation, path: path, lineCount: lineCount)
                    else {
                        Issue.record("round \(round): bad entry \(entry)")
                        return
                    }
                    do {
                        splitWords += try entry.words().count
                    } catch {
                        splitErrors += 1
                        guard Self.isWithin(error.location, path: path, lineCount: lineCount) else {
                            Issue.record("round \(round): \(error) outside the input")
                            return
                        }
                    }
                }
            }
        }
        // Guard against a generator that only ever produces one kind of input (a run gives 21,503 entries,
        // 36,415 diagnostics, 37,661 words and 570 split errors).
        #expect(entries > 10_000)
        #expect(errors > 18_000)
        #expect(splitWords > 18_000)
        #expect(splitErrors > 250)
    }

    private static func soup(using generator: inout SeededRandomNumberGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 0...40, using: &generator) {
            bytes += tokens.randomElement(using: &generator)!
        }
        return bytes
    }

    private static func mutate(_ original: [UInt8], _ generator: inout SeededRandomNumberGenerator) -> [UInt8] {
        var bytes = original
        for _ in 0..<Int.random(in: 1...8, using: &generator) {
            let position = Int.random(in: 0...bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0:
                bytes.insert(contentsOf: tokens.randomElement(using: &generator)!, at: position)
            case 1:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...8, using: &generator)))
            case 2 where position < bytes.count:
                bytes[position] = UInt8.random(in: 0...255, using: &generator)
            case 3:
                let end = min(bytes.count, position + Int.random(in: 1...30, using: &generator))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            default:
                bytes.removeSubrange(position...)
            }
        }
        return bytes
    }

    private static func isWithin(_ location: UnitFileLocation, path: String, lineCount: Int) -> Bool {
        guard location.file == path, let line = location.line, let column = location.column else { return false }
        return (1...lineCount).contains(line) && column >= 1
    }

    private static func isTrimmed(_ text: String, allowEmpty: Bool) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return allowEmpty }
        return ![first, last].contains { $0 == " " || $0 == "\t" }
    }
}
