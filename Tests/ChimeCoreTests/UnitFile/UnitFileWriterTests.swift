import ChimeTestSupport
import Testing

@testable import ChimeCore

/// What `UnitFileWriter` writes must read back, through the real parser, as exactly the value it says.
@Suite struct UnitFileWriterTests {
    static func readBack(_ text: String, key: String = "Body") -> [String] {
        let file = UnitFile(parsing: text, path: "t.notification")
        #expect(file.diagnostics.isEmpty, "\(file.diagnostics) in:\n\(text)")
        return file.sections.flatMap { $0.entries.filter { $0.key == key }.map(\.value) }
    }

    @Test func writesCommentsSectionsAndAssignments() throws {
        var writer = UnitFileWriter()
        writer.comment("Added by chimectl\nsecond line")
        writer.section("Notification")
        try writer.assign("Title", "Tea # hot; 100% \\ \"quoted\" 'x' é 😀")
        writer.section("Trigger")
        try writer.assign("At", "2026-12-01 07:00")
        #expect(
            writer.text == """
                # Added by chimectl
                # second line
                [Notification]
                Title=Tea # hot; 100% \\ "quoted" 'x' é 😀

                [Trigger]
                At=2026-12-01 07:00

                """)
        #expect(Self.readBack(writer.text, key: "Title") == [#"Tea # hot; 100% \ "quoted" 'x' é 😀"#])
    }

    @Test(arguments: [
        ("a\nb", UnitFileWriter.Refusal.lineBreak), ("a\rb", .lineBreak), ("a\0b", .nul),
        (" a", .surroundingWhitespace), ("a\t", .surroundingWhitespace), ("C:\\", .trailingBackslash),
        ("a\\\\\\", .trailingBackslash),
    ])
    func refusesWhatCannotReadBack(value: String, refusal: UnitFileWriter.Refusal) {
        var writer = UnitFileWriter()
        writer.section("Notification")
        #expect(throws: refusal) { try writer.assign("Title", value) }
        #expect(writer.text == "[Notification]\n")
    }

    @Test func anEvenNumberOfTrailingBackslashesIsKept() throws {
        var writer = UnitFileWriter()
        writer.section("Notification")
        try writer.assign("Body", #"C:\\"#)
        try writer.assign("Title", "x")
        #expect(Self.readBack(writer.text) == [#"C:\\"#])
    }

    @Test func lineBreaksBecomeContinuationLines() throws {
        var writer = UnitFileWriter()
        writer.section("Notification")
        let value = try writer.assign("Body", foldingLines: "\n  Starts at 09:00,\r\n  room 4B\r\rbring a pen  \n\n")
        #expect(value == "Starts at 09:00,   room 4B  bring a pen")
        #expect(writer.text == "[Notification]\nBody=Starts at 09:00,\\\n  room 4B \\\nbring a pen\n")
        #expect(Self.readBack(writer.text) == [value])
    }

    @Test func lineBreaksBeforeCommentsAndAfterBackslashesStayOnTheLine() throws {
        var writer = UnitFileWriter()
        writer.section("Notification")
        let value = try writer.assign("Body", foldingLines: "one\n# two\n ; three\nC:\\\nfour\\\\\nfive")
        #expect(value == "one # two  ; three C:\\ four\\\\ five")
        #expect(writer.text == "[Notification]\nBody=one # two  ; three\\\nC:\\ four\\\\\\\nfive\n")
        #expect(Self.readBack(writer.text) == [value])
    }

    @Test func foldedTextIsStillRefusedWhenItEndsInABackslashOrHasNUL() {
        var writer = UnitFileWriter()
        #expect(throws: UnitFileWriter.Refusal.trailingBackslash) { try writer.assign("Body", foldingLines: "a\nb\\") }
        #expect(throws: UnitFileWriter.Refusal.nul) { try writer.assign("Body", foldingLines: "a\n\0") }
        #expect(writer.text.isEmpty)
    }

    /// Random text from the characters that matter to the syntax: whatever is written reads back as promised, and
    /// whatever is refused would not have.
    @Test func randomValuesReadBackAsPromised() throws {
        let pieces = [
            "a", "Tea", " ", "\t", "\\", "\\\\", "\n", "\r", "\r\n", "#", ";", "[x]", "=", "é", "😀", "\"", "'", "%",
        ]
        var generator = SeededRandomNumberGenerator(seed: 0xC41E_5EED)
        var written = (plain: 0, folded: 0)
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...12, using: &generator)
            let value = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
            var writer = UnitFileWriter()
            writer.section("Notification")
            if let folded = try? writer.assign("Body", foldingLines: value) {
                try writer.assign("Title", "end")
                #expect(Self.readBack(writer.text) == [folded], "\(value.debugDescription)")
                written.folded += 1
            }
            var plain = UnitFileWriter()
            plain.section("Notification")
            do {
                try plain.assign("Body", value)
                try plain.assign("Title", "end")
                #expect(Self.readBack(plain.text) == [value], "\(value.debugDescription)")
                written.plain += 1
            } catch {
                let file = UnitFile(parsing: "[Notification]\nBody=\(value)\nTitle=end\n", path: "t")
                let read = file.sections.flatMap(\.entries).first { $0.key == "Body" }?.value
                #expect(read != value || file.hasErrors, "refused \(value.debugDescription) (\(error))")
            }
        }
        #expect(written.plain > 3_000 && written.folded > 10_000)
    }
}
