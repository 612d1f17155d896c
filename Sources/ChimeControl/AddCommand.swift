import ChimeCore
import ChimeDaemon
import ChimePlatform
import Foundation

/// `chimectl add`: schedules a notification without writing a file by hand (the `scheduleLocalNotification` of
/// the iOS API), storing the request as a notification file in the state directory.
struct AddCommand: Command {
    static let name = "add"
    static let summary = "Schedule a notification from the command line; it is kept across restarts"
    static let usage =
        "chimectl add --title=TEXT (--in=SPAN | --at=TIMESTAMP | --on-calendar=SPEC | --every=SPAN | --rrule=RULE | "
        + "--rdate=TIME) [OPTIONS]"
    static let help = """
        Writes the request as STATE_DIR/added/ID.notification, a notification file like any other (see
        chime.notification(5)), makes chimed rebuild its schedule, and prints the id and the next fire date in
        the notification's local time. The file is checked first, with the same errors as 'chimectl verify', and
        nothing is written if it has any. The request survives restarts until it is cancelled
        ('chimectl cancel ID'), or it ends. When chimed is not running it is scheduled when chimed starts (for
        the system instance, only with --state-dir: trying chimectl out leaves no files in /var/lib/chime).

        When:
          --in=SPAN             once, this long from now ('8s', '1h 30min')
          --at=TIMESTAMP        once, at this time ('2026-12-01 07:00', 'tomorrow 08:00'); must be
                                in the future
                                (with --every or --rrule, either is the series' first occurrence)
          --on-calendar=SPEC    on this calendar event ('Mon..Fri 09:55'); repeatable
          --every=SPAN          every SPAN, first one SPAN from now (or at --in, --at, --from)
          --rrule=RULE          on an RFC 5545 rule ('FREQ=MONTHLY;BYDAY=-1FR'), started at --from, or
                                where its time of day next starts (BYHOUR=9: 09:00:00); repeatable
          --rdate=TIME, --exdate=TIME
                                a time added, or taken out ('20261225' takes the whole day); repeatable
          --from=TIMESTAMP      start of the series: the anchor of --every, DTSTART of --rrule
          --until=TIMESTAMP     no occurrence after this time
          --count=N             at most N occurrences
          --timezone=ZONE       read the times above in ZONE ('Asia/Tokyo'); default: the system zone
          --persistent          deliver, late and once, what falls due while chimed is down
          --randomized-delay=SPAN
                                deliver each occurrence up to SPAN later, at random ('5min')
          --fixed-random-delay  the same delay every time on this host (from its machine id)
          --accuracy=SPAN       may come up to SPAN late, to share a wake-up with others
          --wake-system         wake the machine from suspend for it
        Times that depend on now ('tomorrow', '+1h') are fixed when the request is made.

        What:
          --title=TEXT          the summary (required)
          --body=TEXT           the text; line breaks become spaces
          --icon=NAME, --sound=NAME, --urgency=low|normal|critical, --badge=N|+N|-N|clear
          --ring=SPAN|until-answered, --volume=PERCENT, --fade-in=SPAN|yes
                                how the sound rings where chimed plays it ('30s', '80%')
          --speak=yes, --language=LANG
                                read the title and body aloud, in LANG ('de'); default: the locale's
          --interruption-level=passive|active|time-sensitive|critical
                                how much it may interrupt; quiet hours decide by it
          --thread=NAME         the thread it belongs to: one bubble per thread on the desktop
          --repeat=SPANS        again after each span ('5min 10min'), the last over and over, until
                                acknowledged ('chimectl ack ID')
          --action=KEY:LABEL    an action offered; repeatable
          --info=KEY=VALUE      data passed along; repeatable
          --deliver=LIST        backends, such as journal,desktop; default: chimed's
          --id=ID               the id (letters, digits, '-_.@:'); an added notification with this id is
                                replaced; default: a new one such as added-20261130-100512-3f2a
          --app=APP_ID          as the application APP_ID ('org.example.Reminders') would: through chimed's
                                application interface on the session bus (the user instance), kept among
                                that application's requests and listed as APP_ID:ID

        Options:
          --json                {"id":…,"file":…,"replaced":…,"next":…,"next_local":…,"scheduled":…}
                                (with --app: {"app":…,"id":…,"next":…,"next_local":…,"scheduled":…})
          --user                the calling user's instance
          --state-dir=DIR       the instance's state directory, where requests are kept
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories (a file there wins over a request)
          -h, --help            show this help

        The system instance takes requests only from root, a user instance only from its user.

        Exit status: 0 when the request is stored (and, if chimed runs, scheduled), 1 when it is refused or
        fails, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar.instance(
        valued: NotificationRequest.valued.union(["id", "app"]),
        flags: ["persistent", "fixed-random-delay", "wake-system", "json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        if let id = arguments.value("id"), !NotificationLoader.isValidID(id) {
            throw UsageError(
                "invalid --id '\(id)': use letters, digits and '-_.@:', at most 255 bytes, not starting with '.'")
        }
        if let app = arguments.value("app"), !ApplicationRequests.isValidAppID(app) {
            throw UsageError("invalid --app '\(app)': use a desktop-file id such as org.example.Reminders")
        }
        let view = InstanceView(arguments, environment: context.environment)
        let id = arguments.value("id") ?? Self.newID(view, context: context)
        let request = try NotificationRequest(arguments, id: id, context: context)
        let app = arguments.value("app")
        if let deliver = arguments.value("deliver") {
            try Self.checkBackends(try NotificationRequest.backends(deliver), of: view)
        }
        // An application's request goes over the bus to chimed, which stores it: no file of chimectl's.
        if app == nil {
            try view.requireRunningToChangeSystemState(stateDirectoryGiven: arguments.value("state-dir") != nil)
            try view.requireWritable(view.options.addedDirectory)
            if let source = view.configuredFile(id)?.path ?? view.scheduledSource(of: id, other: view.addedPath(id)) {
                throw CommandFailure(
                    "'\(id)' is the id of \(source), which would win over the request; choose another --id")
            }
        }

        // Checked as chimed will read it, at the path it will have.
        let path = view.addedPath(id)
        let loader = NotificationLoader(systemZone: context.localZone, zones: context.zones)
        let result = loader.load(UnitFile(parsing: request.text, path: path), id: id, path: path)
        // The file is the command's own making: a problem in it is a problem with the option that wrote the line.
        for diagnostic in result.diagnostics {
            let option = diagnostic.location.line.flatMap { request.optionOfLine[$0] }
            context.errors.line(
                "chimectl add: " + (option.map { "\($0): \(diagnostic.message)" } ?? diagnostic.description))
        }
        guard let notification = result.notification else {
            throw UsageError("nothing was written")
        }
        for instant in request.instants where instant.date <= context.now {
            let when = Timestamp.format(instant.date, zone: notification.trigger.timeZone ?? context.localZone) ?? "?"
            let ago = Timestamp.relativeDescription(of: instant.date, now: context.now)
            throw CommandFailure(
                "\(instant.option) '\(instant.given)' is in the past (\(when), \(ago)); a notification must fire in "
                    + "the future")
        }
        let history = DeliveryHistory(firstSeen: context.now)
        guard
            let next = notification.trigger.nextOccurrence(
                after: context.now, history: history, systemZone: context.localZone)
        else {
            throw CommandFailure(
                "the notification would never fire (\(VerifyCommand.whyNothing(notification.trigger, base: context.now))); "
                    + "nothing was written")
        }
        if let body = request.foldedBody {
            context.errors.line("chimectl add: --body is stored as one line: '\(body)'")
        }
        if let app {
            return try ApplicationAdd.run(
                request, appID: app, id: id, zone: notification.trigger.timeZone ?? context.localZone,
                context: context, json: arguments.has("json"))
        }

        let replaced = FileManager.default.fileExists(atPath: path)
        do {
            try FileManager.default.createDirectory(
                atPath: view.options.addedDirectory, withIntermediateDirectories: true)
            try AtomicFile.write(request.text, to: path)
        } catch {
            throw CommandFailure("cannot write \(path): \(error)")
        }

        var outcome = Outcome(
            id: id, path: path, replaced: replaced, next: next,
            nextLocal: Timestamp.format(next, zone: notification.trigger.timeZone ?? context.localZone) ?? "?")
        var status = ExitCode.success
        if view.isRunning {
            do {
                let snapshot = try view.rebuild(waiting: { context.errors.line("chimectl: \($0)") })
                status = outcome.take(snapshot, context: context)
            } catch {
                context.errors.line("chimectl add: \(path) is written, but \(error)")
                status = .failure
            }
        } else {
            context.errors.line("chimectl add: chimed is not running; '\(id)' will be scheduled when it starts.")
        }
        outcome.print(to: context, json: arguments.has("json"))
        return status
    }

    /// Refuses a backend that the instance's chimed.conf does not define (a delivery to it would fail), when
    /// chimed.conf could be read: a configuration the caller may not read may define more than the built-ins.
    static func checkBackends(_ names: [String], of view: InstanceView) throws(UsageError) {
        let configuration = DaemonConfiguration.load(directories: view.options.configDirectories)
        guard !configuration.diagnostics.contains(where: { $0.severity == .error }) else { return }
        let known = configuration.backendNames
        for name in names where !known.contains(name) {
            throw UsageError(
                "--deliver: '\(name)' is no backend of this instance." + Suggestion.didYouMean(name, among: known)
                    + " Backends: \(known.joined(separator: ", ")).")
        }
    }

    /// What `add` reports.
    struct Outcome {
        var id: String
        var path: String
        var replaced: Bool
        var next: Date
        var nextLocal: String
        var scheduled = false

        /// Takes the next fire date from what chimed armed; reports (exit 1) when chimed did not arm the request.
        mutating func take(_ snapshot: [String: Any], context: CommandContext) -> ExitCode {
            let scheduled = snapshot["scheduled"] as? [[String: Any]] ?? []
            let entry = scheduled.first { $0["id"] as? String == id }
            if let source = entry?["source"] as? String, source != path {
                context.errors.line(
                    "chimectl add: '\(id)' is the id of \(source), which wins over the request; 'chimectl cancel "
                        + "\(id)' removes the request")
                return .failure
            }
            if let entry, let next = (entry["next"] as? String).flatMap(Timestamp.parseISO8601) {
                self.next = next
                nextLocal = entry["next_local"] as? String ?? nextLocal
                self.scheduled = true
                return .success
            }
            // A request due within moments may have fired already.
            if next <= Date() { return .success }
            let problems = (snapshot["problems"] as? [String] ?? []).filter { $0.hasPrefix(path) }
            for problem in problems { context.errors.line(problem) }
            context.errors.line("chimectl add: chimed did not schedule '\(id)'")
            return .failure
        }

        func print(to context: CommandContext, json: Bool) {
            if json {
                context.output.line(
                    JSONValue.object([
                        ("id", .string(id)), ("file", .string(path)), ("replaced", .bool(replaced)),
                        ("next", .string(Timestamp.iso8601(next, fraction: .microseconds))),
                        ("next_local", .string(nextLocal)), ("scheduled", .bool(scheduled)),
                    ]).serialized)
            } else {
                let left = Timestamp.relativeDescription(of: next, now: context.now)
                context.output.line("\(replaced ? "Replaced" : "Added") \(id): next at \(nextLocal) (\(left)).")
            }
        }
    }

    /// `added-20261130-100512-3f2a`: the local date and time of the request and four random hex digits, unused
    /// by any request or file.
    static func newID(_ view: InstanceView, context: CommandContext) -> String {
        let time = context.localZone.localTime(at: context.now.epochMicroseconds / 1_000_000)
        let stamp = String(
            format: "%04d%02d%02d-%02d%02d%02d", time.year, time.month, time.day, time.hour, time.minute, time.second)
        while true {
            let id = "added-\(stamp)-" + String(format: "%04x", UInt16.random(in: .min ... .max))
            if !FileManager.default.fileExists(atPath: view.addedPath(id)) && view.configuredFile(id) == nil {
                return id
            }
        }
    }
}
