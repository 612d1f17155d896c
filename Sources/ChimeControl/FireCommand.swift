import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl fire`: delivers a notification now, through the same dispatcher and backends as chimed, to try its
/// content and its backends.
struct FireCommand: Command {
    static let name = "fire"
    static let summary = "Deliver notifications now, to try their content and backends"
    static let usage = "chimectl fire [--deliver=LIST] [--json] [--user] [--config-dir=DIR] ID..."
    static let help = """
        Loads the instance's notifications as chimed does (the configuration directories, then those added at
        run time) and delivers each ID now, from this process, to its backends (Deliver=, or chimed's default),
        built from chimed.conf as chimed builds them (except webhooks, which only chimed posts), waiting until
        every backend has finished; then prints what each backend did. A disabled notification is
        delivered too. Nothing is recorded in chimed's state: the delivery is no occurrence, and the schedule
        does not change.

        Options:
          --deliver=LIST        deliver to these backends instead, such as stdout,journal
          --json                per ID: {"id":…,"title":…,"fire_time":…,"backends":[{"backend":…,"delivered":…,
                                "error":…},…]}
          --user                the calling user's instance
          --config-dir=DIR      the instance's configuration directories
          --state-dir=DIR       the instance's state directory (for notifications added at run time)
          --runtime-dir=DIR     the instance's runtime directory (for chimed's default backends)
          -h, --help            show this help

        The stdout backend writes its JSON line to standard output, before the report.

        Exit status: 0 when every backend delivered, 1 when one failed or an ID does not load, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar.instance(valued: ["deliver"], flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        guard !arguments.operands.isEmpty else { throw UsageError("expected the IDs of notifications to fire") }
        let override = try arguments.value("deliver").map(NotificationRequest.backends)
        let view = InstanceView(arguments, environment: context.environment)
        let loaded: LoadedSchedule
        let configuration = DaemonConfiguration.load(directories: view.options.configDirectories)
        do {
            let sources = ScheduleLoader.instanceSources(
                options: view.options, environment: context.environment, configuration: configuration)
            loaded = try ScheduleLoader(sources: sources, zones: context.zones).load(systemZone: context.localZone)
        } catch {
            throw CommandFailure("\(error)")
        }
        let outcomes = OutcomeLog()
        let output = context.output
        // The backends chimed.conf describes, as chimed builds them (webhooks aside: only chimed links them).
        var factories = BackendFactories()
        factories.stdout = { StandardOutputBackend { output.write($0) } }
        let registry = BackendRegistry(
            factories: factories,
            context: BackendContext(
                log: outcomes, clock: SystemWallClock(), responder: UnansweredResponses(),
                environment: context.environment))
        let dispatcher = Dispatcher(
            backends: registry.backends(for: configuration), defaultBackends: view.defaultBackends,
            clock: SystemWallClock(), log: outcomes)

        var status = ExitCode.success
        var fired: [(notification: ScheduledNotification, backends: [String])] = []
        for id in arguments.operands {
            guard var notification = loaded.notifications.first(where: { $0.notification.id == id })?.notification
            else {
                let own = loaded.problems.filter { $0.location.file.contains("/\(id).notification") }
                for problem in own { context.errors.line(problem.description) }
                context.errors.line(
                    "chimectl fire: "
                        + (own.isEmpty
                            ? "no notification '\(id)' in \(view.searchedDescription)" : "'\(id)' does not load"))
                status = .failure
                continue
            }
            if let override { notification.backends = override }
            fired.append((notification, dispatcher.backendNames(for: notification)))
            dispatcher.dispatch(Delivery(notification: notification, fireTime: context.now)) {}
        }
        // Each backend has a timeout of 30 s in the dispatcher, after which it counts as failed.
        if !dispatcher.drain(within: .seconds(35)) {
            context.errors.line("chimectl fire: backends still had not finished after 35 s")
            status = .failure
        }

        let failures = outcomes.failures
        for (notification, backends) in fired {
            let results = backends.map { name in
                let failure = failures.first { $0.id == notification.id && $0.backend == name }?.error
                return (name, failure)
            }
            if results.contains(where: { $0.1 != nil }) { status = .failure }
            if arguments.has("json") {
                let list: [JSONValue] = results.map { name, error in
                    .object(
                        [("backend", .string(name)), ("delivered", .bool(error == nil))]
                            + (error.map { [("error", JSONValue.string($0))] } ?? []))
                }
                context.output.line(
                    JSONValue.object([
                        ("id", .string(notification.id)), ("title", .string(notification.title)),
                        ("fire_time", .string(Timestamp.iso8601(context.now, fraction: .microseconds))),
                        ("backends", .array(list)),
                    ]).serialized)
            } else {
                context.output.line("Fired \(notification.id): \(notification.title)")
                for (name, error) in results {
                    context.output.line("  \(name): " + (error.map { "failed: \($0)" } ?? "delivered"))
                }
            }
        }
        return status
    }
}

/// `chimectl fire` ends once its deliveries are made: a choice on a desktop bubble it put up is not answered.
private struct UnansweredResponses: NotificationResponding {
    func actionInvoked(_ key: String, delivery: Delivery, backend: String) {}
    func closed(_ delivery: Delivery, reason: UInt32, backend: String) {}
}

/// Keeps the failures the dispatcher reports, per notification and backend; a backend without one delivered.
private final class OutcomeLog: EventLog, Sendable {
    struct Failure {
        var id: String
        var backend: String
        var error: String
    }

    private let list = Locked<[Failure]>([])

    func record(_ event: DaemonEvent) {
        guard event.kind == .deliveryFailed else { return }
        func field(_ name: String) -> String { event.fields.first { $0.name == name }?.value ?? "" }
        let failure = Failure(id: field("CHIME_ID"), backend: field("CHIME_BACKEND"), error: field("CHIME_ERROR"))
        list.withLock { $0.append(failure) }
    }

    var failures: [Failure] { list.withLock { $0 } }
}
