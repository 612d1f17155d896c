// A test helper, not installed: runs the systemd wrappers in a process of their own, so that tests can give it an
// environment (WATCHDOG_USEC, JOURNAL_STREAM) and a journal (a private journald in a mount namespace).
import ChimeDaemon
import ChimeSystemd
import Foundation

let usage = """
    Usage: chime-systemd-probe send NAME=VALUE...                  send one entry with JournalWriter
           chime-systemd-probe event KIND MESSAGE [NAME=VALUE...]  record one DaemonEvent with JournalEventLog
           chime-systemd-probe journal-available                   print "yes" or "no"
           chime-systemd-probe watchdog                            print the watchdog interval in µs, or "none"
    """

func fields(_ arguments: some Sequence<String>) -> [(name: String, value: String)] {
    arguments.map { argument in
        guard let equals = argument.firstIndex(of: "=") else { return (argument, "") }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("chime-systemd-probe: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("send", 2...):
    do {
        try JournalWriter().send(fields(arguments.dropFirst()))
    } catch {
        fail("\(error)", status: 1)
    }
case ("event", 3...):
    guard let kind = DaemonEvent.Kind(rawValue: arguments[1]) else { fail("no event kind \(arguments[1])", status: 64) }
    JournalEventLog().record(DaemonEvent(kind, arguments[2], fields: fields(arguments.dropFirst(3))))
case ("journal-available", 1):
    print(JournalWriter.isJournalAvailable ? "yes" : "no")
case ("watchdog", 1):
    do {
        guard let interval = try SystemdNotifier().watchdogInterval() else {
            print("none")
            exit(0)
        }
        let (seconds, attoseconds) = interval.components
        print(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    } catch {
        fail("\(error)", status: 1)
    }
default:
    fail(usage, status: 64)
}
