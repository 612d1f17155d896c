import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl list`: every scheduled notification with its next fire in local time, soonest first.
struct ListCommand: Command {
    static let name = "list"
    static let summary = "List the scheduled notifications, soonest first"
    static let usage = "chimectl list [--all] [--thread=NAME] [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Lists the notifications the running chimed has armed, with the next fire date in the notification's
        local time, the time left, and the trigger. Reads RUNTIME_DIR/schedule.json, which chimed rewrites after
        every rebuild and delivery; it lists the 1,000 soonest (and every one added with 'chimectl add'), and
        the count of all.

        Options:
          --all                 also the notifications with nothing left to fire: disabled (Enabled=no), or
                                whose occurrences are all past (listed after the others, by id)
          --thread=NAME         only the notifications of the thread NAME (Thread=)
          --json                one JSON object per notification and line:
                                {"id":…,"title":…,"next":"2026-11-30T08:55:00.000000Z","next_local":…,"trigger":…}
                                (and "thread" for one that has a Thread=, "delay_usec" for one whose delivery
                                a RandomizedDelaySec= delays: "next" is when it comes, that much after the
                                occurrence)
                                (with --all, "next" is null for those with nothing to fire, and "enabled" says
                                whether they are disabled)
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, looked at for files changed since
                                chimed's last rebuild; repeatable
          --state-dir=DIR       the instance's state directory
          -h, --help            show this help

        Exit status: 0, or 1 when chimed is not running.
        """
    static let grammar = ParsedArguments.Grammar.instance(valued: ["thread"], flags: ["json", "all"])
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        try view.requireRunning()
        view.warnIfSourcesChanged(context)
        let thread = arguments.value("thread")
        let entries = view.entries.filter { thread == nil || $0.thread == thread }
        let idle = (arguments.has("all") ? view.idleEntries : []).filter { thread == nil || $0.thread == thread }
        if arguments.has("json") {
            for entry in entries { context.output.line(Self.json(entry).serialized) }
            for entry in idle {
                context.output.line(
                    JSONValue.object(
                        [
                            ("id", .string(entry.id)), ("title", .string(entry.title)), ("next", .null),
                            ("trigger", .string(entry.trigger)), ("source", .string(entry.source)),
                            ("enabled", .bool(entry.isEnabled)),
                        ] + (entry.thread.map { [("thread", JSONValue.string($0))] } ?? [])
                    ).serialized)
            }
            return .success
        }
        var table = ScheduleTable()
        for entry in entries {
            // To the second: the microseconds of a random delay say nothing.
            let shown = entry.delay >= 1_000_000 ? (entry.delay + 500_000) / 1_000_000 * 1_000_000 : entry.delay
            let delay = entry.delay > 0 ? " (delayed \(Timespan(microseconds: UInt64(shown))))" : ""
            table.add(
                id: entry.id, next: entry.nextLocal,
                left: Timestamp.relativeDescription(of: entry.next, now: context.now), what: entry.trigger + delay)
        }
        for entry in idle {
            table.add(
                id: entry.id, next: entry.isEnabled ? "never (nothing left to fire)" : "disabled (Enabled=no)",
                left: "", what: entry.trigger)
        }
        if !table.isEmpty { context.output.write(table.rendered()) }
        let count = thread == nil ? view.scheduledCount : entries.count
        var summary =
            "\n\(count) scheduled" + (thread.map { " in the thread '\($0)'" } ?? "") + "."
            + (count > entries.count ? " (Listed: the \(entries.count) soonest.)" : "")
        if arguments.has("all") {
            let idleCount = view.snapshot?["idle_count"] as? Int ?? idle.count
            summary +=
                " \(idleCount) with nothing to fire."
                + (idleCount > idle.count ? " (Listed: \(idle.count) of them.)" : "")
        }
        context.output.line(summary)
        return .success
    }

    static func json(_ entry: InstanceView.Entry) -> JSONValue {
        .object(
            [
                ("id", .string(entry.id)), ("title", .string(entry.title)),
                ("next", .string(Timestamp.iso8601(entry.next, fraction: .microseconds))),
                ("next_local", .string(entry.nextLocal)), ("trigger", .string(entry.trigger)),
                ("source", .string(entry.source)), ("backends", .array(entry.backends.map(JSONValue.string))),
            ] + (entry.thread.map { [("thread", JSONValue.string($0))] } ?? [])
                + (entry.delay > 0 ? [("delay_usec", JSONValue.number(entry.delay))] : []))
    }
}
