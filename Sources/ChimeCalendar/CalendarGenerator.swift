import ChimeCore
import ChimePlatform
import Foundation

/// `chime-calendar PATH...`: the generator that turns the alarms of iCalendar files and vdir directories into
/// notifications, one JSON line each, for chimed's `generators.d/`.
public enum CalendarGenerator {
    public static let usage = """
        Usage: chime-calendar [--default-alarm=DURATION] [--persistent] PATH...

        Prints a notification for each alarm (VALARM) of the events in PATH, as the JSON lines chimed reads from a
        generator (chime.notification(5)): PATH is an iCalendar file (.ics), or a directory searched for them, such
        as a vdir that vdirsyncer keeps (one .ics per event, a directory per calendar). Recurring events keep their
        rules (RRule=, RDate=, ExDate=), so that chimed computes every instance in the event's time zone.

          --default-alarm=DURATION  an alarm for events that have none, before (-) or after their start: an RFC
                                    5545 duration ('-PT15M', '-P1D') or a time span ('-15min'); default: none
          --persistent              an alarm missed while chimed was not running comes late, once
          -h, --help                show this help
          --version                 show the version

        What cannot be read (a file, an event, a time zone) is said on standard error and left out; the rest is
        printed. Exit status: 0, or 64 on usage errors.

        """

    /// The most notifications one file gives: a file past it (a feed of a whole institution's events) says so and
    /// gives its first ones, and the other files theirs.
    public static let maximumPerFile = 10_000

    /// Runs with `arguments` (without the program's name); returns the exit status.
    public static func main(
        _ arguments: [String], output: (String) -> Void, errors: (String) -> Void, now: Date = Date()
    ) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(
                arguments, grammar: .init(valued: ["default-alarm"], flags: ["persistent", "version"]))
        } catch {
            errors("chime-calendar: \(error)\n\(usage)")
            return 64
        }
        if parsed.has("help") {
            output(usage)
            return 0
        }
        if parsed.has("version") {
            output("chime-calendar 0.1.0\n")
            return 0
        }
        var options = AlarmNotifications.Options(
            pastBefore: now.epochMicroseconds - 86_400_000_000, isPersistent: parsed.has("persistent"))
        if let text = parsed.value("default-alarm"), text != "none" {
            guard let offset = TriggerOffset(parsing: text) else {
                errors("chime-calendar: --default-alarm '\(text)' is not a duration ('-PT15M', '-15min')\n")
                return 64
            }
            options.defaultAlarm = offset
        }
        guard !parsed.operands.isEmpty else {
            errors("chime-calendar: give at least one .ics file or directory\n\(usage)")
            return 64
        }
        let reader = ICalendarReader(isZone: { ZoneDatabase.system.isValidName($0) })
        let notifications = AlarmNotifications(options: options)
        var seen = Set<String>()
        for (path, calendar) in parsed.operands.flatMap({ files(at: $0, errors: errors) }) {
            guard let data = FileManager.default.contents(atPath: path) else {
                errors("chime-calendar: \(path): cannot be read\n")
                continue
            }
            let (events, problems) = reader.events(in: String(decoding: data, as: UTF8.self), path: path)
            for problem in problems { errors("chime-calendar: \(problem)\n") }
            let lines = notifications.lines(for: events, calendar: calendar) { warning in
                errors("chime-calendar: \(path): \(warning)\n")
            }
            var printed = 0
            for line in lines {
                // The same event in two files (an export beside its vdir) is one notification.
                guard case .object(let members) = line, case .string(let id)? = members.first?.1,
                    seen.insert(id).inserted
                else { continue }
                guard printed < maximumPerFile else {
                    errors("chime-calendar: \(path): more than \(maximumPerFile) alarms; ignoring the rest\n")
                    break
                }
                printed += 1
                output(line.serialized + "\n")
            }
        }
        return 0
    }

    /// The `.ics` files at `path` (sorted), each with the name of its calendar: a file's own name, or the name of
    /// the directory that holds it.
    static func files(at path: String, errors: (String) -> Void) -> [(path: String, calendar: String)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            errors("chime-calendar: \(path): no such file or directory\n")
            return []
        }
        let name = { (file: String) in ((file as NSString).lastPathComponent as NSString).deletingPathExtension }
        guard isDirectory.boolValue else { return [(path, name(path))] }
        let found = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
            .filter { $0.lowercased().hasSuffix(".ics") }.sorted()
        return found.map { relative in
            let full = (path as NSString).appendingPathComponent(relative)
            let directory = (full as NSString).deletingLastPathComponent
            return (full, (directory as NSString).lastPathComponent)
        }
    }
}
