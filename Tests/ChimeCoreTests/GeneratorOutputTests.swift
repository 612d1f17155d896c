import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// `GeneratorOutput`: a generator's JSON lines become what the same keys in a file would, and every way a line can
/// be wrong is reported at `path:line:column` for that line alone.
@Suite struct GeneratorOutputTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")
    static let path = "/etc/chime/generators.d/exams"
    let loader = NotificationLoader(systemZone: GeneratorOutputTests.berlin, zones: .system)

    /// Each line's result as a load reads it (most lines straight from their bytes, `DirectLineReader`), checked
    /// against the full reading of every line.
    func results(_ text: String) -> [(line: Int, result: NotificationLoader.Result)] {
        results(Array(text.utf8))
    }

    func results(_ bytes: [UInt8], path: String = GeneratorOutputTests.path) -> [(
        line: Int, result: NotificationLoader.Result
    )] {
        let loaded = GeneratorOutput.validated(parsing: bytes, path: path, by: loader)
        let full = GeneratorOutput(parsing: bytes, path: path).validated(by: loader)
        #expect(loaded.map(\.line) == full.map(\.line))
        #expect(loaded.map(\.result.notification) == full.map(\.result.notification))
        #expect(loaded.map(\.result.diagnostics) == full.map(\.result.diagnostics))
        return loaded
    }

    /// Every diagnostic of every line, as printed: `path:line:column: message`.
    func problems(_ text: String) -> [String] {
        results(text).flatMap { $0.result.diagnostics.map(\.description) }
    }

    func loadFile(_ text: String, id: String) -> NotificationLoader.Result {
        let path = "/etc/chime/\(id).notification"
        return loader.load(UnitFile(parsing: text, path: path), id: id, path: path)
    }

    /// An earlier load that knows one line, by its hash, and shares by id: what a changed output's load takes.
    struct EarlierSpy: PreviousOutput {
        var known: [Int: ScheduledNotification]
        var shared: [String: ScheduledNotification] = [:]
        func notification(ofLine lineHash: Int, at position: Int) -> ScheduledNotification? { known[lineHash] }
        func share(_ notification: inout ScheduledNotification, at position: Int) {
            if let known = shared[notification.id] { notification = known }
        }
    }

    static func lineHash(_ line: String) -> Int {
        Array(line.utf8).withUnsafeBufferPointer { GeneratorOutput.lineHash($0) }
    }

    /// A line printed before is not read again: the earlier load's notification of the same bytes is taken, as
    /// is. Each clean line's hash is kept for the next load, and none of a line that had something to say.
    @Test func aLinePrintedBeforeIsTakenFromTheLoadBeforeWithoutBeingRead() throws {
        let same = #"{"Id":"same","Title":"Same","At":"2027-01-01 12:00"}"#
        let other = #"{"Id":"other","Title":"Other","At":"2027-01-01 12:00"}"#
        let warned = #"{"Id":"warned","Title":"Warned","At":"2027-01-01 12:00","Colour":"red"}"#
        let broken = #"{"Id":"broken","Title":"Broken","At":"someday"}"#
        // What the line would not read as: proof that it was not read.
        let then = ScheduledNotification(id: "same", title: "As it was then", trigger: Trigger())
        let earlier = EarlierSpy(
            known: [Self.lineHash(same): then, Self.lineHash(warned): then],
            shared: ["other": ScheduledNotification(id: "other", title: "Shared", trigger: Trigger())])
        var problems: [UnitFileDiagnostic] = []
        var hashes: [Int] = []
        let loaded = GeneratorOutput.validated(
            parsing: LineChunks(Array([other, "", same, broken, warned].joined(separator: "\n").utf8)),
            path: Self.path, by: loader, problems: &problems, lineHashes: &hashes, earlier: earlier
        ) { line, result in (line, result.notification!) }
        #expect(loaded.map(\.0) == [1, 3, 5])
        #expect(loaded.map(\.1.title) == ["Shared", "As it was then", "As it was then"])
        #expect(hashes == [Self.lineHash(other), Self.lineHash(same), Self.lineHash(warned)])
        #expect(problems.count == 1)
        // Without an earlier load, each line is read; the warned one's hash is 0.
        var fresh: [Int] = []
        _ = GeneratorOutput.validated(
            parsing: LineChunks(Array([other, same, broken, warned].joined(separator: "\n").utf8)),
            path: Self.path, by: loader, problems: &problems, lineHashes: &fresh
        ) { line, result in (line, result.notification!) }
        #expect(fresh == [Self.lineHash(other), Self.lineHash(same), 0])
        #expect(Set(fresh).count == 3 && !fresh.dropLast().contains(0))
    }

    @Test func everyKeyGivesWhatTheSameKeysInAFileGive() throws {
        let line = """
            {"Id":"exam-42","Title":"Exam: Linear Algebra","Body":"Starts today at 09:00, room 4B",\
            "Icon":"x-office-calendar","Category":"reminder","Sound":"default","Urgency":"critical",\
            "Action":["open:Open","snooze:Snooze"],"ExecAction":"open:/usr/bin/xdg-open \\"https://e.org/?id=42\\"",\
            "SnoozeSec":"5min","Badge":"+1","Info":["kind=exam","room=4B"],"Deliver":["journal","stdout"],\
            "Enabled":true,"At":["2026-12-01 07:00","2026-12-02 07:00"],"OnCalendar":"Mon..Fri 09:55",\
            "Every":"15min","From":"2026-11-30 08:00","Count":7,"Until":"2027-01-01","TimeZone":"Asia/Tokyo",\
            "Persistent":"yes"}
            """
        let file = """
            [Notification]
            Title=Exam: Linear Algebra
            Body=Starts today at 09:00, room 4B
            Icon=x-office-calendar
            Category=reminder
            Sound=default
            Urgency=critical
            Action=open:Open
            Action=snooze:Snooze
            ExecAction=open:/usr/bin/xdg-open "https://e.org/?id=42"
            SnoozeSec=5min
            Badge=+1
            Info=kind=exam
            Info=room=4B
            Deliver=journal
            Deliver=stdout
            Enabled=yes
            [Trigger]
            At=2026-12-01 07:00
            At=2026-12-02 07:00
            OnCalendar=Mon..Fri 09:55
            Every=15min
            From=2026-11-30 08:00
            Count=7
            Until=2027-01-01
            TimeZone=Asia/Tokyo
            Persistent=yes
            """
        let results = results(line)
        #expect(results.map(\.line) == [1])
        let generated = try #require(results.first?.result)
        #expect(generated.diagnostics.isEmpty, "\(generated.diagnostics)")
        let expected = try #require(loadFile(file, id: "exam-42").notification)
        #expect(try #require(generated.notification) == expected)
        #expect(expected.trigger.instants.count == 2 && expected.info.count == 2 && expected.backends.count == 2)
    }

    @Test func numbersBooleansAndBlanksAreWrittenAsInAFile() throws {
        let results = results(
            """
            {"Id":"a","Title":"  padded\\t","Badge":-2,"Count":3,"Persistent":false,"Enabled":false,"Every":"1h"}
            """
        )
        let notification = try #require(results.first?.result.notification)
        #expect(notification.title == "padded")
        #expect(notification.badge == .add(-2))
        #expect(notification.trigger.count == 3)
        #expect(!notification.trigger.isPersistent)
        #expect(!notification.isEnabled)
    }

    @Test func blankLinesAreSkippedAndLinesKeepTheirNumbers() {
        let text = """
            {"Id":"one","Title":"1","OnCalendar":"daily"}

              \t
            {"Id":"four","Title":"4","OnCalendar":"daily"}\r
            {"Id":"five","Title":"5","OnCalendar":"daily"}
            """
        let results = results(text)
        #expect(results.map(\.line) == [1, 4, 5])
        #expect(results.compactMap(\.result.notification?.id) == ["one", "four", "five"])
    }

    @Test func readingAndValidatingLineByLineGivesWhatReadingFirstGives() {
        let odd = [
            #"{"Id":"a","Title":"A","OnCalendar":["Mon 09:00","Tue 10:00"],"Info":["k=v"]}"#, "", "   ",
            #"{"Id":"b","Title":" spaced ","At":"2026-12-01 07:00","Count":3,"Persistent":true}"#,
            #"{"Id":"c","Title":"no trigger"}"#, "not json", #"{"Id":"d","Title":"é ü","Every":"1h","Body":"x\ny"}"#,
            #"{"Id":"e","Title":"E","OnCalendar":"*-*-* 25:00"}"#, #"{"Title":"no id","Every":"1h"}"#,
        ]
        // Enough lines for several chunks of output, read on several threads, with the odd ones in the first and
        // in the last.
        let many = (0..<6000).map {
            #"{"Id":"n\#($0)","Title":"N \#($0)","OnCalendar":"*-*-* \#($0 % 24):\#($0 % 60)"}"#
        }
        let bytes = Array((odd + many + odd).joined(separator: "\n").utf8) + [0x0A, 0xFF, 0x0A]
        #expect(LineChunks(bytes).chunks.count > 1)
        let streamed = results(bytes, path: "gen")
        #expect(streamed.count == 6015)  // the blank lines left out, the invalid UTF-8 in
        #expect(streamed.filter { $0.result.notification != nil }.count == 6004)  // a, b twice and the 6,000
        #expect(streamed.last?.line == 6019)  // the invalid UTF-8
    }

    @Test func aBadLineIsReportedAloneAndTheOthersLoad() {
        let text = """
            {"Id":"one","Title":"1","OnCalendar":"daily"}
            hello
            {"Id":"three","Title":"3","OnCalendar":"daily"}
            """
        let results = results(text)
        #expect(results.compactMap(\.result.notification?.id) == ["one", "three"])
        #expect(problems(text) == ["\(Self.path):2:1: Invalid JSON: expected a value, found 'h'."])
    }

    /// A value that breaks a rule gives the very message the same value gives in a file; only the place differs.
    @Test(arguments: [
        ("At", "2027-13-01 07:00"), ("OnCalendar", "Mon..Fri 25:00"), ("Every", "0"), ("Every", "soon"),
        ("Count", "0"), ("Until", "tomorrow"), ("TimeZone", "Mars/Olympus"), ("Persistent", "maybe"),
        ("Urgency", "urgent"), ("Badge", "++1"), ("SnoozeSec", "0"), ("Action", "open"), ("Info", "1x=y"),
        ("ExecAction", "open:xdg-open x"), ("Enabled", "perhaps"), ("Deliver", "\"journal"),
    ])
    func invalidValuesGiveTheMessagesOfAFile(key: String, value: String) throws {
        let trigger = key == "Every" || key == "Count" ? ("Every", "1h") : ("OnCalendar", "daily")
        let pairs = [("Title", "t")] + (key == trigger.0 ? [] : [trigger]) + [(key, value)]
        let triggerKeys = NotificationLoader.knownKeys["Trigger"]!
        func assignments(inTrigger: Bool) -> String {
            pairs.filter { triggerKeys.contains($0.0) == inTrigger }.map { "\($0.0)=\($0.1)\n" }.joined()
        }
        let file = "[Notification]\n\(assignments(inTrigger: false))[Trigger]\n\(assignments(inTrigger: true))"
        let json = JSONValue.object([("Id", .string("sample"))] + pairs.map { ($0.0, .string($0.1)) }).serialized
        let fromFile = loadFile(file, id: "sample").diagnostics
        let result = try #require(results(json).first?.result)
        #expect(fromFile.contains { $0.severity == .error })
        #expect(result.diagnostics.map(\.message) == fromFile.map(\.message))
        #expect(result.diagnostics.allSatisfy { $0.location.file == Self.path && $0.location.line == 1 })
        #expect(result.notification == nil)
    }

    @Test func errorsPointIntoTheLine() {
        // The value of At starts at column 29, after its opening quote; blanks before a value move it on.
        #expect(
            problems(#"{"Id":"x","Title":"t","At":"2027-13-01 07:00"}"#) == [
                "\(Self.path):1:29: Invalid At= '2027-13-01 07:00': column 6: not a timestamp systemd understands."
            ])
        #expect(
            problems(#"{"Id":"x","Title":"t","OnCalendar":"  Mon..Fri 25:00"}"#) == [
                "\(Self.path):1:39: Invalid OnCalendar= 'Mon..Fri 25:00': The hour 25 is out of range."
            ])
    }

    /// Each way a line can be malformed, with the exact report.
    @Test(arguments: [
        ("[1,2]", "1:1: Expected a JSON object with the keys of a notification, found an array."),
        (#""text""#, "1:1: Expected a JSON object with the keys of a notification, found a string."),
        (
            #"{"Id":"x","Title":"t""#,
            "1:22: Invalid JSON: expected ',' or '}' after a member, found the end of the line."
        ),
        (#"{"Id":"x",}"#, "1:11: Invalid JSON: expected a member name in double quotes, found '}'."),
        (#"{"Id"="x"}"#, "1:6: Invalid JSON: expected ':' after the member name, found '='."),
        (#"{"Id":"x"} {}"#, "1:12: Invalid JSON: unexpected '{' after the value."),
        (#"{"Id":"x\q"}"#, "1:9: Invalid JSON: invalid escape '\\q' in a string."),
        (#"{"Id":"x"#, "1:7: Invalid JSON: unterminated string."),
        ("{\"Id\":\"a\tb\"}", "1:9: Invalid JSON: U+0009 inside a string; write it as an escape such as \\n."),
        (#"{"Count":01}"#, "1:11: Invalid JSON: a number cannot start with 0."),
        (#"{"Count":1.}"#, "1:12: Invalid JSON: expected a digit after '.', found '}'."),
        (#"{"Enabled":tru}"#, "1:12: Invalid JSON: expected a value, found 't'."),
        (#"{"Id":"\ud800"}"#, "1:8: Invalid JSON: unpaired surrogate in \\u escape."),
        (String(repeating: "[", count: 40), "1:33: Invalid JSON: values nested more than 32 deep."),
        (#"{"Title":"t","OnCalendar":"daily"}"#, "1: Missing \"Id\": each line must name its notification."),
        (#"{"Id":42,"Title":"t"}"#, "1:7: \"Id\" must be a string, not a number."),
        (
            #"{"Id":"exam 42","Title":"t"}"#,
            "1:8: Invalid notification name 'exam 42': use letters, digits and '-_.@:'."
        ),
        (#"{"Id":"a","Id":"b"}"#, "1:11: \"Id\" is given twice."),
        (#"{"Id":"a","Title":["t"]}"#, "1:19: \"Title\" must be a string, not an array."),
        (#"{"Id":"a","Title":null}"#, "1:19: \"Title\" must be a string, not null."),
        (#"{"Id":"a","Body":3}"#, "1:18: \"Body\" must be a string, not a number."),
        (#"{"Id":"a","Count":true}"#, "1:19: \"Count\" must be a number or a string, not a boolean."),
        (#"{"Id":"a","Persistent":1}"#, "1:24: \"Persistent\" must be a boolean or a string, not a number."),
        (#"{"Id":"a","At":{"a":1}}"#, "1:16: \"At\" must be a string or an array of strings, not an object."),
        (
            #"{"Id":"a","Action":["open:Open",2]}"#,
            "1:33: \"Action\" must be a string or an array of strings, not an array holding a number."
        ),
        (
            #"{"Id":"a","Body":"one\ntwo"}"#,
            "1:19: \"Body\" cannot hold a line break or NUL: the values of a notification are single lines."
        ),
    ])
    func malformedLines(line: String, expected: String) {
        let results = results(line)
        #expect(results.count == 1)
        #expect(results.first?.result.notification == nil)
        #expect(results.first?.result.diagnostics.map(\.description) == ["\(Self.path):\(expected)"])
    }

    @Test func invalidUTF8IsReportedForItsLine() {
        var bytes = Array(#"{"Id":"a","Title":"t","OnCalendar":"daily"}"#.utf8) + [0x0A]
        bytes += [0x7B, 0xFF, 0x7D, 0x0A]
        let results = results(bytes)
        #expect(results.compactMap(\.result.notification?.id) == ["a"])
        #expect(results.last?.result.diagnostics.map(\.description) == ["\(Self.path):2: Invalid UTF-8."])
    }

    @Test func unknownKeysAreWarningsAndTheLineStillLoads() {
        let text = #"{"Id":"a","title":"t","Title":"T","Colour":"red","OnCalendar":"daily"}"#
        let results = results(text)
        #expect(results.first?.result.notification?.title == "T")
        #expect(
            problems(text) == [
                "\(Self.path):1:11: Unknown key 'title', ignoring. Did you mean 'Title'? Names are case-sensitive.",
                "\(Self.path):1:35: Unknown key 'Colour', ignoring.",
            ])
    }

    @Test func missingTitleAndTriggerPointAtTheLine() {
        #expect(
            problems(#"{"Id":"a"}"#) == [
                "\(Self.path):1: No trigger: set At=, OnCalendar=, Every=, RRule= or RDate= in [Trigger].",
                "\(Self.path):1: Missing Title= in [Notification].",
            ])
    }

    @Test func stringsDecodeEscapesAndSurrogatePairs() throws {
        let text = #"{"Id":"a","Title":"\"q\" \\ \/ \u00e9 \ud83d\udd14 \t","OnCalendar":"daily"}"#
        let notification = try #require(results(text).first?.result.notification)
        #expect(notification.title == "\"q\" \\ / é 🔔")
    }

    @Test func anEmptyValueResetsAsInAFile() throws {
        let text = #"{"Id":"a","Title":"t","Info":["a=1","","b=2"],"Urgency":"","OnCalendar":"daily"}"#
        let notification = try #require(results(text).first?.result.notification)
        #expect(notification.info.map(\.key) == ["b"])
        #expect(notification.urgency == .normal)
    }

    /// Columns count Unicode scalars however many bytes each takes, before and after the first one that is not ASCII.
    @Test func columnsCountScalarsOnALineThatIsNotASCII() {
        #expect(
            problems(#"{"Id":"a","Title":"é🔔 ü","Urgency":"loud","OnCalendar":"daily"}"#) == [
                "\(Self.path):1:37: Invalid Urgency= 'loud': expected low, normal or critical."
            ])
        #expect(
            problems(#"{"Id":"a","Title":"ü🔔","Body":x}"#) == [
                "\(Self.path):1:31: Invalid JSON: expected a value, found 'x'."
            ])
        #expect(
            problems(#"{"Id":"a","Title":"ü\q"}"#) == [
                "\(Self.path):1:21: Invalid JSON: invalid escape '\\q' in a string."
            ])
    }

    /// The lines `DirectLineReader` takes: a plain object of known keys, whatever the types its keys take and the
    /// blanks JSON allows between its parts.
    @Test(arguments: [
        #"{"Id":"a","Title":"t","OnCalendar":"daily"}"#,
        #" { "Id" : "a" , "Title" : "t" , "OnCalendar" : [ "daily" , "Mon 09:00" ] } \#r"#,
        #"{"Title":"é 🔔","Id":"a@b:c.d_e-f","Every":"1h","Count":12,"Badge":-2,"Persistent":true}"#,
        #"{"Id":"a","Title":"t","At":[],"Every":"1h","Enabled":false,"Urgency":"","Urgency":"low"}"#,
    ])
    func linesReadStraightFromTheirBytes(line: String) {
        var assignments: [NotificationAssignment] = []
        let id = Array(line.utf8).withUnsafeBufferPointer { DirectLineReader.read($0, into: &assignments) }
        #expect(id != nil)
        #expect(!assignments.isEmpty)
        #expect(results(line).allSatisfy { $0.result.diagnostics.isEmpty })
    }

    @Test func theDirectReadingTakesWhatItReadsAsTheFileWould() {
        let line = #"{"Id":"a","Title":"t","Info":["k=v","",  "l=w"],"Count":7,"WakeSystem":false,"Every":"1h"}"#
        var assignments: [NotificationAssignment] = []
        let id = Array(line.utf8).withUnsafeBufferPointer { DirectLineReader.read($0, into: &assignments) }
        #expect(id == "a")
        #expect(assignments.map(\.name) == ["Title", "Info", "Info", "Info", "Count", "WakeSystem", "Every"])
        #expect(assignments.map(\.value) == ["t", "k=v", "", "l=w", "7", "no", "1h"])
    }

    /// What it leaves to the full reading: anything with something to say about it, and what it would have to
    /// decode or trim.
    @Test(arguments: [
        #"{"Id":"a","Title":"t\"q","OnCalendar":"daily"}"#, #"{"Id":"a","Title":" t","OnCalendar":"daily"}"#,
        #"{"Id":"a","Title":"t ","OnCalendar":"daily"}"#, #"{"Id":"a","title":"t","OnCalendar":"daily"}"#,
        #"{"Id":"a","Id":"a","Title":"t"}"#, #"{"Title":"t","OnCalendar":"daily"}"#, #"{"Id":"a b","Title":"t"}"#,
        #"{"Id":1,"Title":"t"}"#, #"{"Id":"a","Title":["t"]}"#, #"{"Id":"a","Title":1}"#,
        #"{"Id":"a","Count":true}"#, #"{"Id":"a","Enabled":1}"#, #"{"Id":"a","At":null}"#,
        #"{"Id":"a","At":["x",1]}"#, #"{"Id":"a","At":{}}"#, #"{"Id":"a","Count":01}"#, #"{"Id":"a","Count":1.}"#,
        #"{"Id":"a","Title":"t","Every":"1h","Count":2.5}"#, #"{"Id":"a","Title":"t","Every":"1h","Count":1e2}"#,
        #"{"Id":"a","Title":"t"} x"#, #"{"Id":"a","Title":"t",}"#, #"{"Id":"a","Title":"t""#, #"{}"#, "[1]",
        "{\"Id\":\"a\",\"Title\":\"a\tb\"}", "\u{0B}{\"Id\":\"a\",\"Title\":\"t\"}", #"{"Id":"a","Enabled":tru}"#,
        #"{"Id":"a","Title":"t","At":[\#((0...InputLimits.maximumRepeats).map { _ in #""2027-01-01""# }.joined(separator: ","))]}"#,
        #"{"Id":"a","Title":"\#(String(repeating: "x", count: InputLimits.maximumValueLength + 1))"}"#,
    ])
    func linesLeftToTheFullReading(line: String) {
        var assignments: [NotificationAssignment] = []
        let id = Array(line.utf8).withUnsafeBufferPointer { DirectLineReader.read($0, into: &assignments) }
        #expect(id == nil)
        _ = results(line)
    }

    @Test func aLineOfInvalidUTF8IsLeftToTheFullReading() {
        let bytes = Array(#"{"Id":"a","Title":""#.utf8) + [0xC3, 0x28] + Array(#"","Every":"1h"}"#.utf8)
        var assignments: [NotificationAssignment] = []
        #expect(bytes.withUnsafeBufferPointer { DirectLineReader.read($0, into: &assignments) } == nil)
        #expect(results(bytes).first?.result.diagnostics.map(\.message) == ["Invalid UTF-8."])
    }

    /// Lines bent at random, byte by byte, read both ways: wherever the direct reading takes a line, it must give
    /// what the full reading gives, and a line with anything to say about it must be said about in full.
    @Test func bentLinesGiveWhatTheFullReadingGives() {
        let samples = [
            #"{"Id":"a","Title":"Reminder 1","Body":"water","Info":["kind=bench","n=1"],"OnCalendar":"*-*-* 02:56:00"}"#,
            #"{"Id":"b","Title":"t","Every":"1w","From":"2026-12-03 17:47:30 UTC","Count":30,"Persistent":true}"#,
            #"{"Id":"c","Title":"t","At":["2027-06-30 21:35:39 UTC","2027-08-25 08:35:55"],"Badge":"+1"}"#,
            #"{"Id":"d","Title":"t","OnCalendar":"Mon..Fri 09:00","TimeZone":"Asia/Tokyo","Deliver":"journal"}"#,
            #"{"Id":"e","Title":"t","RRule":"FREQ=DAILY","From":"2027-01-01 09:00","Action":"open:Open"}"#,
        ]
        let alphabet = Array(#"{}[]",: "e1-.tfnu\"#.utf8) + [0x00, 0x09, 0x0D, 0xC3, 0xA9, 0xFF]
        var generator = SeededRandomNumberGenerator(seed: 0xB1_7E5)
        var lines: [[UInt8]] = []
        for _ in 0..<3000 {
            var bytes = Array(samples.randomElement(using: &generator)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                let byte = alphabet.randomElement(using: &generator)!
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                default: bytes.remove(at: at)
                }
            }
            lines.append(bytes)
        }
        var taken = 0
        for line in lines {
            var assignments: [NotificationAssignment] = []
            if line.withUnsafeBufferPointer({ DirectLineReader.read($0, into: &assignments) }) != nil { taken += 1 }
        }
        // Both kinds occur, so that both readings were compared.
        #expect(taken > 300 && taken < 2700, "\(taken) of \(lines.count) taken directly")
        _ = results(Array(lines.joined(separator: [0x0A])))
    }
}
