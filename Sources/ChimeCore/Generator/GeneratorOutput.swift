/// What a generator printed on its standard output, read line by line: each line one JSON object with the keys of a
/// notification file plus `Id`, turned into the `UnitFile` that a `NAME.notification` with the same keys would be.
///
/// `{"Id":"exam-42","Title":"Exam","At":"2026-12-01 07:00","TimeZone":"Asia/Tokyo"}` becomes the notification
/// `exam-42` with `Title=Exam` in `[Notification]` and `At=`, `TimeZone=` in `[Trigger]`, so `NotificationLoader`
/// validates it with the same rules and messages as a file. Values are strings; a key that can be repeated in a file
/// (`At`, `OnCalendar`, `RRule`, `RDate`, `ExDate`, `Action`, `ExecAction`, `Info`, `Deliver`) also takes an array
/// of strings, `Count` and `Badge` also take a number, `Persistent`, `Enabled`, `FixedRandomDelay`, `WakeSystem`
/// and `DismissAcknowledges` also take a boolean.
///
/// Each line stands alone: a line that is not JSON, not an object, has no valid `Id` or a value of the wrong type
/// is an error for that line only. An unknown key is a warning, as in a file. Blank lines are skipped. Locations
/// are `path:line:column`, the column counting Unicode scalars from 1.
public struct GeneratorOutput: Sendable {
    /// One non-blank line of output.
    public struct Line: Sendable {
        /// The line number, counting from 1.
        public var number: Int
        /// The notification's id, or `nil` when the line did not give a valid one.
        public var id: String?
        /// The keys sorted into `[Notification]` and `[Trigger]`; its `diagnostics` hold what is wrong with the
        /// line itself (if any is an error, the line is not loaded).
        public var unit: UnitFile
    }

    /// The generator's path, used in locations.
    public var path: String
    public var lines: [Line] = []

    /// Reads the bytes a generator printed on stdout.
    ///
    /// Lines are independent, so they are read on all cores (a generator may print a million).
    public init(parsing output: [UInt8], path: String) {
        self.path = path
        let rawLines = output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let reader = self
        lines = Array(rawLines.indices).concurrentMap { index -> Line? in
            rawLines[index].withUnsafeBufferPointer { reader.line($0, number: index + 1) }
        }.compactMap { $0 }
    }

    private init(path: String) {
        self.path = path
    }

    /// Reads and validates `output` line by line, as `init(parsing:path:)` and then `validated(by:)` would, but
    /// without keeping every line's `UnitFile` until all are read: each is dropped as soon as its notification is
    /// made. With a million lines that is most of the memory a load needs, and the garbage that would otherwise lie
    /// between the notifications kept.
    public static func validated(
        parsing output: [UInt8], path: String, by loader: NotificationLoader
    ) -> [(line: Int, result: NotificationLoader.Result)] {
        var problems: [UnitFileDiagnostic] = []
        var lineHashes: [Int] = []
        return validated(
            parsing: LineChunks(output), path: path, by: loader, problems: &problems, keepingAll: true,
            lineHashes: &lineHashes
        ) { (line: $0, result: $1) }
    }

    /// Reads and validates `output` line by line into what `make` makes of each line's result, in line order, and
    /// adds every line's diagnostics to `problems`: what a load keeps of a generator, made on all cores and moved
    /// (not copied) into the array returned. Each chunk of `output` is let go of once its lines are read, so that
    /// the output and the notifications made of it are not held whole side by side.
    /// - Parameters:
    ///   - keepingAll: whether to make something of the lines that gave no notification too; by default only the
    ///     notifications are made and returned.
    ///   - lineHashes: set to the `lineHash(_:)` of each line made, in the order of the array returned; 0 for a line
    ///     whose result a later load is not to take as it is (it had something to say, or gave no notification).
    ///   - earlier: what a load before made of this generator's output: a line it read too is not read again, and
    ///     a notification read is given its equal from then.
    public static func validated<Made>(
        parsing output: consuming LineChunks, path: String, by loader: NotificationLoader,
        problems: inout [UnitFileDiagnostic], keepingAll: Bool = false, lineHashes: inout [Int],
        earlier: (any PreviousOutput)? = nil,
        _ make: (_ line: Int, _ result: consuming NotificationLoader.Result) -> Made
    ) -> [Made] {
        let reader = GeneratorOutput(path: path)
        // Unwrapped once: each use of an optional existential copies the whole of what it holds.
        let earlier: any PreviousOutput = earlier ?? NoEarlierOutput()
        let chunks = UnsafeMutableBufferPointer<[UInt8]>.allocate(capacity: output.chunks.count)
        _ = chunks.initialize(fromContentsOf: output.takeChunks())
        // Where each chunk's lines start: every chunk but the last ends with a line break.
        let lineCounts = UnsafeMutableBufferPointer<Int>.allocate(capacity: chunks.count)
        ParallelWork.perform(iterations: chunks.count) { chunk in
            let breaks = chunks[chunk].withUnsafeBufferPointer { bytes in
                bytes.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            }
            let unfinished = chunks[chunk].last.map { $0 != UInt8(ascii: "\n") } ?? false
            (lineCounts.baseAddress! + chunk).initialize(to: breaks + (unfinished ? 1 : 0))
        }
        var firstLine = [0]
        for count in lineCounts { firstLine.append(firstLine.last! + count) }
        lineCounts.deallocate()
        let lineCount = firstLine.last!
        // Each line's result is made by the threads in its line's place of the array returned, and the array is
        // then closed up over the lines that made nothing, in place: copying the results, as a map would, retained
        // and released every string of a million notifications on this one thread, and a buffer between would
        // hold them twice.
        let isMade = UnsafeMutableBufferPointer<Bool>.allocate(capacity: lineCount)
        let chunkProblems = UnsafeMutableBufferPointer<[UnitFileDiagnostic]>.allocate(capacity: chunks.count)
        var hashes = [Int](repeating: 0, count: lineCount)
        defer {
            isMade.deallocate()
            chunkProblems.deinitialize().deallocate()
            chunks.deinitialize().deallocate()
        }
        let made = [Made](unsafeUninitializedCapacity: lineCount) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            hashes.withUnsafeMutableBufferPointer { hashes in
                nonisolated(unsafe) let hashes = hashes
                withoutActuallyEscaping(make) { make in
                    nonisolated(unsafe) let make = make
                    ParallelWork.perform(iterations: chunks.count) { chunk in
                        var problems: [UnitFileDiagnostic] = []
                        var assignments: [NotificationAssignment] = []
                        var lineReader = reader.reader(loader)
                        chunks[chunk].withUnsafeBufferPointer { bytes in
                            var start = 0
                            for index in firstLine[chunk]..<firstLine[chunk + 1] {
                                let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                                let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
                                start = end + 1
                                isMade[index] = false
                                let hash = lineHash(text)
                                var result: NotificationLoader.Result
                                if let notification = earlier.notification(ofLine: hash, at: index) {
                                    result = NotificationLoader.Result(id: notification.id, notification: notification)
                                } else {
                                    if let direct = reader.directly(text, number: index + 1, &lineReader, &assignments)
                                    {
                                        result = consume direct
                                    } else {
                                        guard let line = reader.line(text, number: index + 1) else { continue }
                                        result = reader.validate(line, loader)
                                    }
                                    if result.gaveNotification { earlier.share(&result.notification!, at: index) }
                                }
                                problems += result.diagnostics
                                let gaveNotification = result.gaveNotification
                                guard keepingAll || gaveNotification else { continue }
                                hashes[index] = result.diagnostics.isEmpty && gaveNotification ? hash : 0
                                // Each `consume` here and above: a result copied retains each of its parts.
                                (buffer.baseAddress! + index).initialize(to: make(index + 1, consume result))
                                isMade[index] = true
                            }
                        }
                        chunks[chunk] = []
                        (chunkProblems.baseAddress! + chunk).initialize(to: problems)
                    }
                }
            }
            var end = 0
            for index in 0..<lineCount where isMade[index] {
                if index != end {
                    (buffer.baseAddress! + end).moveInitialize(from: buffer.baseAddress! + index, count: 1)
                    hashes[end] = hashes[index]
                }
                end += 1
            }
            initialized = end
        }
        hashes.removeSubrange(made.count...)
        lineHashes = hashes
        for chunk in chunkProblems where !chunk.isEmpty { problems += chunk }
        return made
    }

    /// A line's bytes hashed, never 0: what tells a later load that it printed the same line again. Seeded anew for
    /// each process (`Hasher`), so that no output can be made to collide on purpose.
    public static func lineHash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        let hash = hasher.finalize()
        return hash == 0 ? 1 : hash
    }

    /// Validates each line's notification as `loader` validates a file, in line order. A line with errors of its
    /// own is not validated further; its result holds those errors and no notification.
    public func validated(by loader: NotificationLoader) -> [(line: Int, result: NotificationLoader.Result)] {
        lines.concurrentMap { line in (line.number, validate(line, loader)) }
    }

    /// The line's result read straight from its bytes (`DirectLineReader`), or `nil` when it must be read in full:
    /// it is not a line that reader takes, or something was found to say about it, which only the full reading
    /// says with the place it points at.
    /// - Parameter reader: made once for many lines with the loader (`reader(_:)`).
    private func directly(
        _ bytes: UnsafeBufferPointer<UInt8>, number: Int, _ reader: inout NotificationReader,
        _ assignments: inout [NotificationAssignment]
    ) -> NotificationLoader.Result? {
        assignments.removeAll(keepingCapacity: true)
        guard let id = DirectLineReader.read(bytes, into: &assignments) else { return nil }
        let result = NotificationLoader.load(
            NotificationAssignments(unplaced: assignments, line: location(number)), id: id, path: path, with: &reader)
        // Not `?:`, which copies the result, retaining each of its parts.
        guard result.diagnostics.isEmpty else { return nil }
        return result
    }

    /// A reader of lines read straight from their bytes with `loader`, for one thread's many lines.
    private func reader(_ loader: NotificationLoader) -> NotificationReader {
        NotificationReader(NotificationAssignments(unplaced: [], line: location(0)), path: path, loader: loader)
    }

    private func validate(_ line: Line, _ loader: NotificationLoader) -> NotificationLoader.Result {
        guard let id = line.id, !line.unit.hasErrors else {
            return NotificationLoader.Result(id: line.id ?? "", diagnostics: line.unit.diagnostics)
        }
        return loader.load(line.unit, id: id, path: path)
    }

    /// The line `number` (from 1), or `nil` for a blank one.
    private func line(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Line? {
        // Before anything reads the bytes: a line of 50 MB is refused for the cost of its length.
        guard bytes.count <= InputLimits.maximumLineLength else {
            let message =
                "Line is \(InputLimits.grouped(bytes.count)) bytes long, more than the "
                + "\(InputLimits.size(InputLimits.maximumLineLength)) a generator's line may have."
            return Line(number: number, id: nil, unit: Self.refused(at: location(number), message))
        }
        // An ASCII line (nearly every one) is valid UTF-8 as it is, and blank only when it is all blanks.
        var isASCII = true
        var isBlank = true
        for byte in bytes {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D: continue
            case 0x80...: isASCII = false
            default: isBlank = false
            }
        }
        if !isASCII {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return Line(number: number, id: nil, unit: Self.refused(at: location(number), "Invalid UTF-8."))
            }
            isBlank = isBlank && !text.contains(where: { !$0.isWhitespace })
        }
        return isBlank ? nil : read(bytes, number: number)
    }

    private func location(_ line: Int, column: Int? = nil) -> UnitFileLocation {
        UnitFileLocation(file: path, line: line, column: column)
    }

    private static func refused(at location: UnitFileLocation, _ message: String) -> UnitFile {
        UnitFile(diagnostics: [UnitFileDiagnostic(.error, at: location, message)])
    }

    private func read(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Line {
        let json: PositionedJSON
        do {
            json = try PositionedJSON.parse(utf8: bytes)
        } catch {
            return Line(
                number: number, id: nil,
                unit: Self.refused(
                    at: location(number, column: error.column), "Invalid JSON: \(error.reason)".endingSentence))
        }
        guard case .object(let members) = json.value else {
            return Line(
                number: number, id: nil,
                unit: Self.refused(
                    at: location(number, column: json.column),
                    "Expected a JSON object with the keys of a notification, found \(json.kind)."))
        }
        var reader = LineReader(output: self, number: number)
        for member in members { reader.read(member) }
        return reader.line()
    }
}

/// Sorts one object's members into sections, collecting what is wrong on the way.
private struct LineReader {
    let output: GeneratorOutput
    let number: Int
    var id: String?
    var idSeen = false
    var notification: [UnitFileEntry] = []
    var trigger: [UnitFileEntry] = []
    var diagnostics: [UnitFileDiagnostic] = []

    init(output: GeneratorOutput, number: Int) {
        self.output = output
        self.number = number
    }

    func location(_ column: Int? = nil) -> UnitFileLocation {
        UnitFileLocation(file: output.path, line: number, column: column)
    }

    mutating func error(_ column: Int?, _ message: String) {
        diagnostics.append(UnitFileDiagnostic(.error, at: location(column), message))
    }

    func line() -> GeneratorOutput.Line {
        var diagnostics = self.diagnostics
        if !idSeen {
            diagnostics.insert(
                UnitFileDiagnostic(.error, at: location(), "Missing \"Id\": each line must name its notification."),
                at: 0)
        }
        // Both sections always exist, so that "Missing Title=" and "No trigger" point at this line.
        let unit = UnitFile(
            sections: [
                UnitFileSection(name: "Notification", location: location(), entries: notification),
                UnitFileSection(name: "Trigger", location: location(), entries: trigger),
            ],
            diagnostics: diagnostics)
        return GeneratorOutput.Line(number: number, id: unit.hasErrors ? nil : id, unit: unit)
    }

    mutating func read(_ member: PositionedJSON.Member) {
        let key = member.name
        if key == "Id" {
            readID(member)
            return
        }
        guard let notificationKey = NotificationKey.named(key) else {
            let known = (NotificationLoader.knownKeys.values.flatMap { $0 } + ["Id"]).sorted()
            diagnostics.append(
                UnitFileDiagnostic(
                    .warning, at: location(member.column),
                    "Unknown key '\(key)', ignoring." + Suggestion.didYouMean(key, among: known)))
            return
        }
        add(member, notificationKey)
    }

    mutating func readID(_ member: PositionedJSON.Member) {
        guard !idSeen else {
            error(member.column, "\"Id\" is given twice.")
            return
        }
        idSeen = true
        guard case .string(let value) = member.value.value else {
            error(member.value.column, "\"Id\" must be a string, not \(member.value.kind).")
            return
        }
        guard NotificationLoader.isValidID(value) else {
            error(member.value.column + 1, NotificationLoader.invalidIDMessage(value))
            return
        }
        id = value
    }

    /// Adds the assignments a file would have for `member`, the key `known`, to its section: one per value. A key
    /// that can be given more than once in a file also takes an array of strings; a number (written as the value
    /// exactly as the generator printed it) or a boolean (`yes` or `no`) is taken where the key's value is one.
    mutating func add(_ member: PositionedJSON.Member, _ known: NotificationKey) {
        let key = member.name
        let value = member.value
        let isTrigger = known.isTrigger
        func append(_ entry: UnitFileEntry?) {
            guard let entry else { return }
            if isTrigger { trigger.append(entry) } else { notification.append(entry) }
        }
        switch value.value {
        case .string(let text):
            append(entry(key, member.column, text, column: value.column + 1))
        case .number(let text) where known.takesNumber:
            append(entry(key, member.column, text, column: value.column))
        case .bool(let flag) where known.takesBoolean:
            append(entry(key, member.column, flag ? "yes" : "no", column: value.column))
        case .array(let elements) where known.isRepeatable:
            for element in elements {
                guard case .string(let text) = element.value else {
                    error(
                        element.column,
                        "\"\(key)\" must be a string or an array of strings, not an array holding \(element.kind).")
                    continue
                }
                append(entry(key, member.column, text, column: element.column + 1))
            }
        default:
            let accepted =
                known.isRepeatable
                ? "a string or an array of strings"
                : known.takesNumber
                    ? "a number or a string"
                    : known.takesBoolean ? "a boolean or a string" : "a string"
            error(value.column, "\"\(key)\" must be \(accepted), not \(value.kind).")
        }
    }

    /// `Key=text` as the file parser would store it: surrounding blanks removed, `column` moved past them. `nil`
    /// (and an error) for text no line of a file could hold.
    mutating func entry(_ key: String, _ keyColumn: Int, _ text: String, column: Int) -> UnitFileEntry? {
        // Nearly always: nothing to refuse and nothing to trim, and the text is taken as it is.
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, first != 0x20, first != 0x09, last != 0x20, last != 0x09,
            !utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 })
        {
            return UnitFileEntry(
                key: key, value: text, location: location(keyColumn), valueLocation: location(column))
        }
        if text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) {
            error(column, "\"\(key)\" cannot hold a line break or NUL: the values of a notification are single lines.")
            return nil
        }
        let scalars = text.unicodeScalars
        let leading = scalars.prefix { $0 == " " || $0 == "\t" }.count
        let trailing = scalars.reversed().prefix { $0 == " " || $0 == "\t" }.count
        var trimmed = String.UnicodeScalarView()
        if leading < scalars.count {
            trimmed.append(contentsOf: scalars.dropFirst(leading).dropLast(trailing))
        }
        let valueColumn = column + leading
        return UnitFileEntry(
            key: key, value: String(trimmed), location: location(keyColumn), valueLocation: location(valueColumn))
    }
}

/// What a load before made of a generator's output, for a load of its changed output to take from
/// (`GeneratorOutput.validated`).
public protocol PreviousOutput: Sendable {
    /// The notification a line with `lineHash` (`GeneratorOutput.lineHash`) gave then, if it gave one with nothing
    /// to say about it. `position` is the line's among the lines read now: where it is if nothing moved.
    func notification(ofLine lineHash: Int, at position: Int) -> ScheduledNotification?
    /// Makes `notification`, read now from the line at `position`, the one of then equal to it, to share its storage,
    /// or else share the parts they have in common; in place, where a copy in and out retained every part twice.
    func share(_ notification: inout ScheduledNotification, at position: Int)
}

/// The earlier output of a load that had none: nothing to take.
private struct NoEarlierOutput: PreviousOutput {
    func notification(ofLine lineHash: Int, at position: Int) -> ScheduledNotification? { nil }
    func share(_ notification: inout ScheduledNotification, at position: Int) {}
}
