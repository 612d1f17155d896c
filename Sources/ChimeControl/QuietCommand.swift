import ChimeCore
import ChimeDaemon
import ChimePlatform
import Foundation

/// `chimectl quiet`: the user's quiet switch, beside chimed.conf's quiet hours (the Focus switch of iOS).
struct QuietCommand: Command {
    static let name = "quiet"
    static let summary = "Switch quiet on or off, or show whether it is quiet"
    static let usage =
        "chimectl quiet [on [--for=SPAN | --until=TIME] | off | status] [--json] [--user] [--state-dir=DIR]"
    static let help = """
        While it is quiet, chimed holds passive and active notifications and delivers them when quiet ends, as
        one summary or each on its own; time-sensitive ones pass unless chimed.conf says otherwise, and critical
        ones always pass (chimed.conf's [Focus], chime.notification(5)'s InterruptionLevel=). It is quiet during
        chimed.conf's quiet hours ([Quiet]), while the desktop's do-not-disturb is on (user instance), and while
        this switch is on.

        'on' makes it quiet until 'off', for a time span (--for=1h30min) or until a time (--until=07:00,
        --until='tomorrow 07:00'). 'off' ends quiet now, releasing what was held: it ends a switch that is on
        and the stretch of quiet hours going on (the next one is quiet again); it cannot end the desktop's
        do-not-disturb. The switch is kept in STATE_DIR/quiet.json and holds across restarts. 'status' (the
        default) says whether it is quiet, why, until when, and how much is held.

        Options:
          --for=SPAN            with 'on': for this long (a systemd time span)
          --until=TIME          with 'on': until this time (a systemd timestamp, in the local zone)
          --json                {"quiet":true,"reasons":[…],"until":…,"held":N,…}
          --user                the calling user's instance
          --state-dir=DIR       the instance's state directory, where the switch is kept
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories (for the quiet hours)
          -h, --help            show this help

        Exit status: 0, 1 on failure, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar.instance(valued: ["for", "until"], flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        let action = arguments.operands.first ?? "status"
        guard arguments.operands.count <= 1 else {
            throw UsageError("'quiet' takes one action: on, off or status")
        }
        if action != "on" && (arguments.value("for") != nil || arguments.value("until") != nil) {
            throw UsageError("--for and --until go with 'quiet on'")
        }
        var snapshot: [String: Any]?
        switch action {
        case "status":
            snapshot = view.isRunning ? view.snapshot : nil
        case "on":
            let until = try end(arguments, in: context)
            snapshot = try set(QuietSwitch(.on, setAt: context.now, until: until), view: view, arguments: arguments)
        case "off":
            snapshot = try set(QuietSwitch(.off, setAt: context.now), view: view, arguments: arguments)
        default:
            throw UsageError("unknown quiet action '\(action)'; expected on, off or status")
        }
        let quiet = (snapshot?["quiet"] as? [String: Any]) ?? offline(view, now: context.now)
        if arguments.has("json") {
            let data = try JSONSerialization.data(withJSONObject: quiet, options: [.sortedKeys])
            context.output.line(String(decoding: data, as: UTF8.self))
        } else {
            for line in describe(quiet, isRunning: snapshot != nil) { context.output.line(line) }
        }
        return .success
    }

    /// The end of `on`: `--for=` from now, or `--until=`; `nil` for "until switched off".
    private static func end(_ arguments: ParsedArguments, in context: CommandContext) throws -> Date? {
        switch (arguments.value("for"), try arguments.timestamp("until", in: context)) {
        case (nil, nil):
            return nil
        case (let text?, nil):
            guard let span = try? Timespan.parse(text), span.microseconds > 0, !span.isInfinite else {
                throw UsageError("invalid --for '\(text)': expected a time span above zero such as 1h or 45min")
            }
            return context.now.addingTimeInterval(Double(span.microseconds) / 1_000_000)
        case (nil, let until?):
            guard until > context.now else {
                throw UsageError(
                    "--until '\(arguments.value("until")!)' is already past "
                        + "(\(Timestamp.format(until, zone: context.localZone) ?? Timestamp.iso8601(until)))")
            }
            return until
        case (.some, .some):
            throw UsageError("give --for or --until, not both")
        }
    }

    /// Keeps the switch and has the running chimed take it; returns chimed's snapshot after, or `nil` when it does
    /// not run.
    private static func set(_ quietSwitch: QuietSwitch, view: InstanceView, arguments: ParsedArguments) throws
        -> [String: Any]?
    {
        try view.requireRunningToChangeSystemState(stateDirectoryGiven: arguments.value("state-dir") != nil)
        try view.requireWritable(view.options.stateDirectory)
        try QuietSwitchFile(stateDirectory: view.options.stateDirectory).write(quietSwitch)
        guard view.isRunning else { return nil }
        return try view.rebuild()
    }

    /// What chimed would decide now from chimed.conf and the switch, when it does not run (the desktop aside).
    private static func offline(_ view: InstanceView, now: Date) -> [String: Any] {
        let zone = LocalZone.resolve(tz: view.environment["TZ"])
        let configuration = DaemonConfiguration.load(directories: view.options.configDirectories, systemZone: zone)
        let kept = try? QuietSwitchFile(stateDirectory: view.options.stateDirectory).read()
        let quietness = Quietness(
            at: now, hours: configuration.focus.hours, quietSwitch: kept ?? nil, desktop: nil, systemZone: zone)
        let text = QuietStatus(quietness, held: 0, zone: zone).json.serialized
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    /// `Quiet: yes (quiet hours) until Wed 2026-12-02 07:00:00 CET; 3 held`.
    private static func describe(_ quiet: [String: Any], isRunning: Bool) -> [String] {
        let isQuiet = quiet["quiet"] as? Bool ?? false
        var line = "Quiet: \(isQuiet ? "yes" : "no")"
        if isQuiet {
            let reasons = quiet["reasons"] as? [String] ?? []
            if !reasons.isEmpty { line += " (\(reasons.joined(separator: ", ")))" }
            line += (quiet["until_local"] as? String).map { " until \($0)" } ?? " until it is switched off"
        } else if let next = quiet["next_change_local"] as? String {
            line += "; quiet hours begin \(next)"
        }
        var lines = [line]
        if isRunning {
            lines.append("Held: \(quiet["held"] as? Int ?? 0)")
        } else {
            lines.append("chimed is not running: this is what it would decide from chimed.conf and the switch.")
        }
        return lines
    }
}
