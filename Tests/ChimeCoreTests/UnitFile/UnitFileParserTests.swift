import Foundation
import Testing

@testable import ChimeCore

/// One line per section header and per entry: `[Name] line:column` and `Key=value line:column line:column`
/// (the key's, then the value's location).
private func outline(_ file: UnitFile) -> [String] {
    file.sections.flatMap { section in
        ["[\(section.name)] \(position(section.location))"]
            + section.entries.map { "\($0.key)=\($0.value) \(position($0.location)) \(position($0.valueLocation))" }
    }
}

private func position(_ location: UnitFileLocation) -> String {
    "\(location.line.map(String.init) ?? "-"):\(location.column.map(String.init) ?? "-")"
}

@Suite struct UnitFileParserTests {
    @Test(arguments: [
        ("basic", "[A]\nKey=value\n", ["[A] 1:1", "Key=value 2:1 2:5"]),
        ("no final newline", "[A]\nKey=value", ["[A] 1:1", "Key=value 2:1 2:5"]),
        (
            "whitespace around key and value", "[A]\n \t Key \t= \t some  value \t\n",
            ["[A] 1:1", "Key=some  value 2:4 2:13"]
        ),
        ("value keeps quotes and '='", "[A]\nK = \"a b\" x=y\n", ["[A] 1:1", "K=\"a b\" x=y 2:1 2:5"]),
        ("empty assignment", "[A]\nKey=\nOther =  \n", ["[A] 1:1", "Key= 2:1 2:5", "Other= 3:1 3:8"]),
        (
            "comments and empty lines", "# one\n; two\n\n[A]\n  # three\n\t; four\n\nK=v\n#K=w\n",
            ["[A] 4:1", "K=v 8:1 8:3"]
        ),
        (
            "a trailing '#' is part of the value", "[A]\nK=v # not a comment\n",
            ["[A] 1:1", "K=v # not a comment 2:1 2:3"]
        ),
        (
            "repeated keys keep every value in order", "[A]\nK=1\nK=2\nK=\nK=3\n",
            ["[A] 1:1", "K=1 2:1 2:3", "K=2 3:1 3:3", "K= 4:1 4:3", "K=3 5:1 5:3"]
        ),
        ("keys are case-sensitive", "[A]\nkey=1\nKey=2\n", ["[A] 1:1", "key=1 2:1 2:5", "Key=2 3:1 3:5"]),
        ("key with inner whitespace", "[A]\nFoo Bar = x\n", ["[A] 1:1", "Foo Bar=x 2:1 2:11"]),
        (
            "repeated section", "[A]\nK=1\n[B]\nK=2\n[A]\nK=3\n",
            ["[A] 1:1", "K=1 2:1 2:3", "[B] 3:1", "K=2 4:1 4:3", "[A] 5:1", "K=3 6:1 6:3"]
        ),
        ("empty section", "[A]\n[B]\nK=v\n", ["[A] 1:1", "[B] 2:1", "K=v 3:1 3:3"]),
        ("indented header", "  [A]  \nK=v\n", ["[A] 1:3", "K=v 2:1 2:3"]),
        ("header names are kept as written", "[]\n[ A ]\n[a]b]\n", ["[] 1:1", "[ A ] 2:1", "[a]b] 3:1"]),
        ("continuation", "[A]\nK=one \\\n  two\n", ["[A] 1:1", "K=one    two 2:1 2:3"]),
        (
            "continuation over several lines", "[A]\nK=a\\\nb\\\nc\nL=d\n",
            ["[A] 1:1", "K=a b c 2:1 2:3", "L=d 5:1 5:3"]
        ),
        (
            "comments inside a continuation are skipped", "[A]\nK=value 3\\\n# ignored\n; ignored too\\\n  continued\n",
            ["[A] 1:1", "K=value 3   continued 2:1 2:3"]
        ),
        ("escaped backslash does not continue", "[A]\nK=a\\\\\nL=b\n", ["[A] 1:1", "K=a\\\\ 2:1 2:3", "L=b 3:1 3:3"]),
        ("odd backslashes continue", "[A]\nK=a\\\\\\\nL=b\n", ["[A] 1:1", "K=a\\\\ L=b 2:1 2:3"]),
        (
            "backslash before trailing whitespace does not continue", "[A]\nK=a\\ \nL=b\n",
            ["[A] 1:1", "K=a\\ 2:1 2:3", "L=b 3:1 3:3"]
        ),
        ("empty line ends a continuation", "[A]\nK=a\\\n\nL=b\n", ["[A] 1:1", "K=a 2:1 2:3", "L=b 4:1 4:3"]),
        (
            "whitespace-only line ends a continuation", "[A]\nK=a\\\n  \t\nL=b\n",
            ["[A] 1:1", "K=a 2:1 2:3", "L=b 4:1 4:3"]
        ),
        ("file ending inside a continuation", "[A]\nK=a\\", ["[A] 1:1", "K=a 2:1 2:3"]),
        ("file ending after a continued line", "[A]\nK=a\\\n", ["[A] 1:1", "K=a 2:1 2:3"]),
        ("continued key", "[A]\nK\\\n=v\n", ["[A] 1:1", "K=v 2:1 3:2"]),
        ("value starting on the next line", "[A]\nK=\\\n  v\n", ["[A] 1:1", "K=v 2:1 3:3"]),
        ("continued header", "[A\\\nB]\nK=v\n", ["[A B] 1:1", "K=v 3:1 3:3"]),
        ("line starting with a continuation", "[A]\n  \\\n K=v\n", ["[A] 1:1", "K=v 3:2 3:4"]),
        (
            "header text inside a continuation is value", "[A]\nK=a\\\n[B]\nL=b\n",
            ["[A] 1:1", "K=a [B] 2:1 2:3", "L=b 4:1 4:3"]
        ),
        ("byte order mark at the start", "\u{FEFF}[A]\nK=v\n", ["[A] 1:1", "K=v 2:1 2:3"]),
        ("byte order mark elsewhere is text", "[A]\n\u{FEFF}K=v\n", ["[A] 1:1", "\u{FEFF}K=v 2:1 2:4"]),
        ("CRLF", "[A]\r\nK=v \r\nL=w\\\r\nx\r\n", ["[A] 1:1", "K=v 2:1 2:3", "L=w x 3:1 3:3"]),
        ("lone CR ends a line", "[A]\rK=v\rL=w", ["[A] 1:1", "K=v 2:1 2:3", "L=w 3:1 3:3"]),
        ("LF CR is one line end", "[A]\n\rK=v\n", ["[A] 1:1", "K=v 2:1 2:3"]),
        ("CR CR LF is two line ends", "[A]\r\r\nK=v\n", ["[A] 1:1", "K=v 3:1 3:3"]),
        ("NUL ends a line", "[A]\nK=v\0L=w\n", ["[A] 1:1", "K=v 2:1 2:3", "L=w 3:1 3:3"]),
        ("NUL LF is two line ends", "[A]\nK=v\0\nL=w\n", ["[A] 1:1", "K=v 2:1 2:3", "L=w 4:1 4:3"]),
        ("columns count characters", "[Ä]\nÜber = äöü\n", ["[Ä] 1:1", "Über=äöü 2:1 2:8"]),
        ("four-byte scalars", "[🔔]\nK🔔=🔔 ok\n", ["[🔔] 1:1", "K🔔=🔔 ok 2:1 2:4"]),
        ("empty file", "", []),
        ("only comments", "# a\n; b\n", []),
    ])
    func parses(name: String, text: String, expected: [String]) {
        let file = UnitFile(parsing: text, path: "t.notification")
        #expect(file.diagnostics == [], "\(name)")
        #expect(outline(file) == expected, "\(name)")
    }

    @Test(arguments: [
        ("assignment before any section", "K=v\n[A]\n", ["t:1:1: Assignment outside of section."]),
        ("indented assignment before any section", "  K = v\n", ["t:1:3: Assignment outside of section."]),
        ("missing '='", "[A]\nnoequals\n", ["t:2:1: Missing '='."]),
        ("missing '=' on an indented line", "[A]\n  no equals  \n", ["t:2:3: Missing '='."]),
        ("missing '=' before any section", "noequals\n", ["t:1:1: Missing '='."]),
        ("empty key", "[A]\n=v\n", ["t:2:1: Missing key name before '='."]),
        ("blank key", "[A]\n   = v\n", ["t:2:4: Missing key name before '='."]),
        ("unterminated header", "[A\nK=v\n", ["t:1:1: Invalid section header '[A'."]),
        ("lone bracket", "[\n", ["t:1:1: Invalid section header '['."]),
        ("garbage after header", "[A] x\n", ["t:1:1: Invalid section header '[A] x'."]),
        ("indented garbage header", "  [A]]x\n", ["t:1:3: Invalid section header '[A]]x'."]),
        ("double quote in header", "[A\"B]\n", ["t:1:3: Bad characters in section header '[A\"B]'."]),
        ("single quote in header", "[A'B]\n", ["t:1:3: Bad characters in section header '[A'B]'."]),
        ("backslash in header", "[AB\\]\n", ["t:1:4: Bad characters in section header '[AB\\]'."]),
        ("tab in header", "[A\tB]\n", ["t:1:3: Bad characters in section header '[A\tB]'."]),
        ("DEL in header", "[A\u{7F}]\n", ["t:1:3: Bad characters in section header '[A\u{7F}]'."]),
        ("error in a continued line is at its first line", "[A]\nfoo\\\nbar\n", ["t:2:1: Missing '='."]),
        (
            "assignments after a bad header are dropped quietly", "[A]\n[B\nK=v\nx\n[C]\nL=w\nz\n",
            ["t:2:1: Invalid section header '[B'.", "t:4:1: Missing '='.", "t:7:1: Missing '='."]
        ),
        (
            "every problem is reported", "K=v\n[A]\nx\n = y\n[B\n[C] d\n[D]\nok=1\nnope\n",
            [
                "t:1:1: Assignment outside of section.", "t:3:1: Missing '='.", "t:4:2: Missing key name before '='.",
                "t:5:1: Invalid section header '[B'.", "t:6:1: Invalid section header '[C] d'.", "t:9:1: Missing '='.",
            ]
        ),
    ])
    func rejects(name: String, text: String, expected: [String]) {
        let file = UnitFile(parsing: text, path: "t")
        #expect(file.diagnostics.map(\.description) == expected, "\(name)")
        #expect(file.diagnostics.allSatisfy { $0.severity == .error }, "\(name)")
        #expect(file.hasErrors == !expected.isEmpty)
    }

    @Test func keepsValidPartsAroundErrors() {
        let file = UnitFile(parsing: "[A]\nK=1\nbad\n[B\nL=2\n[C]\nM=3\n", path: "t")
        #expect(outline(file) == ["[A] 1:1", "K=1 2:1 2:3", "[C] 6:1", "M=3 7:1 7:3"])
        #expect(file.diagnostics.count == 2)
    }

    @Test(arguments: [
        (
            "invalid byte in a value", [UInt8]("[A]\nK=a".utf8) + [0xFF] + [UInt8]("b\nL=c\n".utf8),
            ["t:2:4: Line is not valid UTF-8."], ["[A] 1:1", "L=c 3:1 3:3"]
        ),
        (
            "column counts characters before the invalid byte", [UInt8]("[A]\nK=é".utf8) + [0xFF],
            ["t:2:4: Line is not valid UTF-8."], ["[A] 1:1"]
        ),
        (
            "truncated sequence at the end", [UInt8]("[A]\nK=".utf8) + [0xC3],
            ["t:2:3: Line is not valid UTF-8."], ["[A] 1:1"]
        ),
        (
            "encoded surrogate", [UInt8]("[A]\nK=".utf8) + [0xED, 0xA0, 0x80],
            ["t:2:3: Line is not valid UTF-8."], ["[A] 1:1"]
        ),
        (
            "overlong encoding", [UInt8]("[A]\nK=".utf8) + [0xC0, 0x80],
            ["t:2:3: Line is not valid UTF-8."], ["[A] 1:1"]
        ),
        (
            "invalid byte in a key", [UInt8]("[A]\nK".utf8) + [0xFE] + [UInt8]("=v\n".utf8),
            ["t:2:2: Line is not valid UTF-8."], ["[A] 1:1"]
        ),
        (
            "invalid byte on a continuation line", [UInt8]("[A]\nK=a\\\nbc".utf8) + [0x80],
            ["t:3:3: Line is not valid UTF-8."], ["[A] 1:1"]
        ),
        (
            "invalid byte in a header ends the section", [UInt8]("[A]\n[B".utf8) + [0xFF] + [UInt8]("]\nK=v\n".utf8),
            ["t:2:3: Line is not valid UTF-8."], ["[A] 1:1"]
        ),
        (
            "invalid bytes in comments are ignored", [UInt8]("# ".utf8) + [0xFF] + [UInt8]("\n[A]\n; ".utf8) + [0xC3],
            [], ["[A] 2:1"]
        ),
        ("byte order mark alone", [0xEF, 0xBB, 0xBF], [], []),
    ])
    func reportsInvalidUTF8(name: String, bytes: [UInt8], expected: [String], parts: [String]) {
        let file = UnitFile(parsing: Data(bytes), path: "t")
        #expect(file.diagnostics.map(\.description) == expected, "\(name)")
        #expect(outline(file) == parts, "\(name)")
    }

    @Test func rejectsOverlongLines() {
        let limit = UnitFileParser.maximumLineLength
        let fits = "[A]\nK=" + String(repeating: "x", count: limit - 2) + "\nL=v\n"
        #expect(UnitFile(parsing: fits, path: "t").diagnostics == [])
        let long = "[A]\nK=" + String(repeating: "x", count: limit - 1) + "\nL=v\n"
        let file = UnitFile(parsing: long, path: "t")
        #expect(
            file.diagnostics.map(\.description) == [
                "t:2:1: Line is 1,048,577 bytes long, more than the 1 MiB a line may have."
            ])
        #expect(outline(file) == ["[A] 1:1", "L=v 3:1 3:3"])
        let continued = "[A]\nK=" + String(repeating: "xx\\\n", count: limit / 3) + "y\nL=v\n"
        #expect(
            UnitFile(parsing: continued, path: "t").diagnostics.map(\.description) == [
                "t:2:1: Line is 1,048,578 bytes long, more than the 1 MiB a line may have."
            ])
    }

    @Test(arguments: [
        ("[A]\nK=1\nK=2\n", "A", "K", ["1", "2"], "2" as String?),
        ("[A]\nK=1\nK=\nK=3\n", "A", "K", ["3"], "3"),
        ("[A]\nK=1\nK=2\nK=\n", "A", "K", [], ""),
        ("[A]\nK=1\n[B]\nK=x\n[A]\nK=2\n", "A", "K", ["1", "2"], "2"),
        ("[A]\nK=1\n[B]\nK=\n[A]\nK=2\n", "A", "K", ["1", "2"], "2"),
        ("[A]\nK=1\n[A]\nL=2\n", "A", "K", ["1"], "1"),
        ("[A]\nK=1\n", "A", "L", [], nil),
        ("[A]\nk=1\nK=2\n", "A", "K", ["2"], "2"),
        ("[a]\nK=1\n", "A", "K", [], nil),
        ("[A]\nK=x y \\\n z\n", "A", "K", ["x y   z"], "x y   z"),
    ])
    func looksUpValues(text: String, section: String, key: String, values: [String], last: String?) {
        let file = UnitFile(parsing: text, path: "t")
        #expect(file.values(for: key, in: section).map(\.value) == values)
        #expect(file.lastValue(for: key, in: section)?.value == last)
    }

    @Test func lookupsKeepLocations() {
        let file = UnitFile(parsing: "[A]\nK=1\nK=\n\n  K = 2\n", path: "f.notification")
        #expect(file.values(for: "K", in: "A").map(\.location.description) == ["f.notification:5:3"])
        #expect(file.lastValue(for: "K", in: "A")?.valueLocation.description == "f.notification:5:7")
    }

    @Test(arguments: [
        (UnitFileLocation(file: "a/b.conf"), "a/b.conf"),
        (UnitFileLocation(file: "a/b.conf", line: 3), "a/b.conf:3"),
        (UnitFileLocation(file: "a/b.conf", line: 3, column: 7), "a/b.conf:3:7"),
        (UnitFileLocation(file: "a/b.conf", column: 7), "a/b.conf"),
    ])
    func rendersLocations(location: UnitFileLocation, expected: String) {
        #expect(location.description == expected)
        #expect(UnitFileDiagnostic(.warning, at: location, "Hm.").description == expected + ": Hm.")
    }
}
