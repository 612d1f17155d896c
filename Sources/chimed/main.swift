import ChimeCore
import ChimeDaemon
import Foundation

let environment = ProcessInfo.processInfo.environment
let parsed: (DaemonOptions, check: Bool)?
do {
    parsed = try Chimed.options(Array(CommandLine.arguments.dropFirst()), environment: environment)
} catch {
    FileHandle.standardError.write(Data("chimed: \(error)\nTry 'chimed --help'.\n".utf8))
    exit(64)
}
guard let (options, check) = parsed else { exit(0) }
if check {
    exit(Chimed.check(options, environment: environment, now: Date()))
}
let daemon = Daemon(options: options, environment: environment, log: JournalEventLog(environment: environment))
daemon.watchClockAndTimeZone()
daemon.run()
