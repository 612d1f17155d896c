import Testing

@testable import ChimeCore

@Suite struct WordSplitterTests {
    private static let start = UnitFileLocation(file: "f", line: 1, column: 1)

    @Test(arguments: [
        ("", []),
        (" \t ", []),
        ("a b  c", ["a", "b", "c"]),
        ("  lead\ttab\rcr\nnl  ", ["lead", "tab", "cr", "nl"]),
        ("\"a b\" 'c d'", ["a b", "c d"]),
        ("a\"b c\"d", ["ab cd"]),
        ("/x'a'\"b\"", ["/xab"]),
        ("\"\"", [""]),
        ("'' x \"\"", ["", "x", ""]),
        ("\"it's\" 'say \"hi\"'", ["it's", "say \"hi\""]),
        ("\"a\tb\"", ["a\tb"]),
        ("\\a\\b\\f\\n\\r\\t\\v", ["\u{7}\u{8}\u{C}\n\r\t\u{B}"]),
        ("\\\\ \\\" \\'", ["\\", "\"", "'"]),
        ("a\\sb", ["a b"]),
        ("a\\ b a\\\tb", ["a b", "a\tb"]),
        ("'a\\tb' \"a\\\"b\"", ["a\tb", "a\"b"]),
        ("\\x41\\101\\u00e9\\U0001F600", ["AAé😀"]),
        ("\\x4A\\x4a", ["JJ"]),
        ("\\xc3\\xa9 \\303\\251", ["é", "é"]),
        ("echo \"$HOME\" %i ; ${X}", ["echo", "$HOME", "%i", ";", "${X}"]),
        ("notify-send 'Exam: Linear Algebra' \"Room 4B\"", ["notify-send", "Exam: Linear Algebra", "Room 4B"]),
        ("héllo wörld", ["héllo", "wörld"]),
    ])
    func splits(text: String, words: [String]) throws {
        #expect(try WordSplitter.split(text, at: Self.start) == words)
    }

    @Test(arguments: [
        ("\"abc", "f:1:1: Unterminated quote."),
        ("a 'b", "f:1:3: Unterminated quote."),
        ("a\"b", "f:1:2: Unterminated quote."),
        ("'a\"", "f:1:1: Unterminated quote."),
        ("\"a\\\"", "f:1:1: Unterminated quote."),
        ("\\q", "f:1:1: Unknown escape sequence '\\q'."),
        ("ok \\;", "f:1:4: Unknown escape sequence '\\;'."),
        ("é\\é", "f:1:2: Unknown escape sequence '\\é'."),
        ("ab\\", "f:1:3: Backslash at the end of the value escapes nothing."),
        ("\\x4", "f:1:1: Invalid escape sequence '\\x4'."),
        ("\\x4g", "f:1:1: Invalid escape sequence '\\x4g'."),
        ("\\x+1", "f:1:1: Invalid escape sequence '\\x+1'."),
        ("\\x４１", "f:1:1: Invalid escape sequence '\\x４１'."),
        ("\\u00E", "f:1:1: Invalid escape sequence '\\u00E'."),
        ("\\U0001F60", "f:1:1: Invalid escape sequence '\\U0001F60'."),
        ("\\08", "f:1:1: Invalid escape sequence '\\08'."),
        ("\\0", "f:1:1: Invalid escape sequence '\\0'."),
        ("\\x00", "f:1:1: Escape sequence '\\x00' would produce a NUL character."),
        ("\\000", "f:1:1: Escape sequence '\\000' would produce a NUL character."),
        ("\\u0000", "f:1:1: Escape sequence '\\u0000' would produce a NUL character."),
        ("\\777", "f:1:1: Escape sequence '\\777' is out of range."),
        ("\\uD800", "f:1:1: Escape sequence '\\uD800' is not a Unicode scalar."),
        ("\\U00110000", "f:1:1: Escape sequence '\\U00110000' is not a Unicode scalar."),
        ("\\xff", "f:1:1: Escaped bytes do not form valid UTF-8."),
        ("ok \"x \\xc3\"", "f:1:4: Escaped bytes do not form valid UTF-8."),
    ])
    func rejects(text: String, expected: String) {
        #expect {
            try WordSplitter.split(text, at: Self.start)
        } throws: { error in
            let diagnostic = error as? UnitFileDiagnostic
            return diagnostic?.description == expected && diagnostic?.severity == .error
        }
    }

    @Test(arguments: [
        (UnitFileLocation(file: "f", line: 3, column: 10), "f:3:12: Unknown escape sequence '\\q'."),
        (UnitFileLocation(file: "f", line: 3), "f:3: Unknown escape sequence '\\q'."),
        (UnitFileLocation(file: "f"), "f: Unknown escape sequence '\\q'."),
    ])
    func reportsRelativeToTheGivenLocation(location: UnitFileLocation, expected: String) {
        #expect {
            try WordSplitter.split("a \\q", at: location)
        } throws: { error in
            (error as? UnitFileDiagnostic)?.description == expected
        }
    }

    @Test(arguments: [
        ("[A]\nExec=/bin/echo  \"a b\"\n", ["/bin/echo", "a b"]),
        ("[A]\nExec=/bin/echo \\\n  \"a \\\n b\"\n", ["/bin/echo", "a   b"]),
        ("[A]\nExec=\n", []),
    ])
    func splitsEntries(text: String, words: [String]) throws {
        let entry = try #require(UnitFile(parsing: text, path: "f").lastValue(for: "Exec", in: "A"))
        #expect(try entry.words() == words)
    }

    @Test(arguments: [
        ("[A]\n  Exec = /bin/echo \\q\n", "f:2:20: Unknown escape sequence '\\q'."),
        ("[A]\nExec=/bin/echo \\\n  \"unterminated\n", "f:3:3: Unterminated quote."),
        ("[A]\nExec=a\\\nb\\\n# comment\n\tc \\q\n", "f:5:4: Unknown escape sequence '\\q'."),
        ("[A]\nExec=é \\\nb \\xff\n", "f:3:3: Escaped bytes do not form valid UTF-8."),
        ("[A]\nExec=\\\n\\q\n", "f:3:1: Unknown escape sequence '\\q'."),
    ])
    func locatesEntryErrorsInTheFile(text: String, expected: String) throws {
        let entry = try #require(UnitFile(parsing: text, path: "f").lastValue(for: "Exec", in: "A"))
        #expect {
            try entry.words()
        } throws: { error in
            (error as? UnitFileDiagnostic)?.description == expected
        }
    }
}
