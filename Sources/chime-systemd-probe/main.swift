// A test helper, not installed: runs the systemd wrappers in a process of their own, so that tests can give it an
// environment (WATCHDOG_USEC, JOURNAL_STREAM) and a journal (a private journald in a mount namespace).
import ChimeCore
import ChimeDaemon
import ChimeSystemd
import Foundation

let usage = """
    Usage: chime-systemd-probe send NAME=VALUE...                  send one entry with JournalWriter
           chime-systemd-probe event KIND MESSAGE [NAME=VALUE...]  record one DaemonEvent with JournalEventLog
           chime-systemd-probe dispatch ID TITLE FIRE_TIME MISSED BACKEND[,BACKEND...] [BODY [KEY=VALUE...]]
                                                                   deliver once through chimed's Dispatcher
                                                                   (backends journal, stdout; others fail)
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
case ("dispatch", 6...):
    guard let fireTime = Timestamp.parseISO8601(arguments[3]), let missed = Int(arguments[4]) else {
        fail(usage, status: 64)
    }
    var notification = ScheduledNotification(id: arguments[1], title: arguments[2], trigger: Trigger())
    notification.backends = arguments[5].split(separator: ",").map(String.init)
    if arguments.count > 6 { notification.body = arguments[6] }
    notification.info = fields(arguments.dropFirst(7)).map { (key: $0.name, value: $0.value) }
    let dispatcher = Dispatcher(
        backends: [JournalBackend(), StandardOutputBackend()], defaultBackends: ["journal"],
        clock: SystemWallClock(), log: JournalEventLog())
    dispatcher.dispatch(Delivery(notification: notification, fireTime: fireTime, missedCount: missed)) {}
    guard dispatcher.drain(within: .seconds(10)) else { fail("deliveries did not finish within 10 s", status: 1) }
case ("journal-available", 1):
    print(JournalWriter.isJournalAvailable ? "yes" : "no")
case ("watchdog", 1):
    do {
        guard let interval = try SystemdNotifier().watchdogInterval() else {
            print("none")
            exit(0)
        }
        print(interval.wholeMicroseconds)
    } catch {
        fail("\(error)", status: 1)
    }
default:
    fail(usage, status: 64)
}
