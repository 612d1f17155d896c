import ChimeCore
import ChimeDaemon
import ChimeGLib
import ChimeWebhook
import Foundation

if let problem = Chimed.keepCapabilitiesFromChildren() {
    FileHandle.standardError.write(
        Data("chimed: cannot empty the ambient capability set (\(problem)), ignoring\n".utf8))
}
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
// A user instance plays sounds through its helper, installed beside it.
let soundHelper = SoundHelper.installed(scratchDirectory: options.runtimeDirectory, environment: environment)
if soundHelper == nil && options.instance == .user {
    FileHandle.standardError.write(
        Data("chimed: chime-sound is not installed beside chimed; sounds are left to the notification server\n".utf8))
}
var factories = BackendFactories()
factories.webhook = { WebhookBackend(settings: $0, context: $1) }
let daemon = Daemon(
    options: options, environment: environment, factories: factories, desktopSettings: DconfSettings(),
    applicationNames: DesktopEntryNames(),
    soundPlayer: soundHelper,
    log: JournalEventLog(environment: environment))
daemon.watchClockAndTimeZone()
daemon.run()
