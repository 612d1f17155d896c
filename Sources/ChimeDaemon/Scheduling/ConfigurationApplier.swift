import ChimeCore
import Foundation

/// Puts chimed.conf into effect as a rebuild loaded it, on the scheduler's queue before the schedule is swapped in:
/// its problems told, the backends rebuilt where their settings changed, what may be presented, quiet hours with
/// the user's switch (so that what a catch-up delivers at the install is judged by them), and the peers of the
/// backends in use described in the journal. Bound to the scheduler's queue (checked).
final class ConfigurationApplier: @unchecked Sendable {
    private let queue: DispatchQueue
    private let pipeline: DeliveryPipeline
    private let registry: BackendRegistry
    private let log: any EventLog
    /// `chimed --deliver=`, which takes the place of chimed.conf's `Deliver=`.
    private let defaultBackendsOverride: [String]?

    /// chimed.conf as last applied.
    private(set) var configuration = DaemonConfiguration()

    init(
        queue: DispatchQueue, pipeline: DeliveryPipeline, registry: BackendRegistry,
        defaultBackendsOverride: [String]?, log: any EventLog
    ) {
        self.queue = queue
        self.pipeline = pipeline
        self.registry = registry
        self.defaultBackendsOverride = defaultBackendsOverride
        self.log = log
    }

    /// The backends of notifications without `Deliver=`.
    var defaultBackends: [String] { configuration.backendsWithoutDeliver(override: defaultBackendsOverride) }

    /// Takes `loaded`, with the user's quiet switch as read beside it.
    /// - Parameters:
    ///   - namedBackends: the backends notifications name in `Deliver=`: with the default ones, those whose peer is
    ///     described in the journal (a desktop nobody delivers to is not worth a line at every start).
    ///   - isFirst: the first configuration of this chimed: a missing journal is said once, then.
    func apply(
        _ loaded: DaemonConfiguration, namedBackends: Set<String>,
        quietSwitch: Result<QuietSwitch?, QuietSwitchFile.Unreadable>, systemZone: ZoneRules, isFirst: Bool
    ) {
        dispatchPrecondition(condition: .onQueue(queue))
        configuration = loaded
        pipeline.configure(
            presentation: loaded.presentation, sound: loaded.sound, desktopEntry: loaded.desktop.desktopEntry)
        for problem in loaded.diagnostics { log.record(DaemonEvent.configurationProblem(problem)) }
        let backends = registry.backends(for: loaded)
        let names = Set(backends.map(\.name))
        for name in defaultBackends where !names.contains(name) {
            log.record(
                DaemonEvent(
                    .configError, "The default backends name '\(name)', which is no backend; deliveries to it fail.",
                    priority: .warning))
        }
        if isFirst, defaultBackends.contains("journal"), !JournalBackend.isJournalAvailable {
            log.record(
                DaemonEvent(
                    .systemError,
                    "No journal listens (\(JournalBackend.socketPath) is missing): deliveries to the journal backend "
                        + "fail. Start systemd-journald, or deliver elsewhere with --deliver= or chimed.conf's "
                        + "[Daemon] Deliver=.", priority: .warning))
        }
        pipeline.dispatcher.reconfigure(backends: backends, defaultBackends: defaultBackends)
        applyFocus(loaded.focus, quietSwitch: quietSwitch, systemZone: systemZone)
        describe(backends, inUse: namedBackends.union(defaultBackends))
    }

    private func applyFocus(
        _ settings: FocusSettings, quietSwitch: Result<QuietSwitch?, QuietSwitchFile.Unreadable>, systemZone: ZoneRules
    ) {
        var kept: QuietSwitch?
        switch quietSwitch {
        case .success(let value): kept = value
        case .failure(let error):
            log.record(DaemonEvent(.stateError, "\(error); ignoring the quiet switch", priority: .warning))
        }
        pipeline.focus.configure(settings, quietSwitch: kept, systemZone: systemZone)
    }

    /// One journal line with the presentation settings and the peer of each backend in use, as the backends
    /// describe them (asking a desktop's server takes a round trip: off the queue).
    private func describe(_ backends: [any DeliveryBackend], inUse: Set<String>) {
        let presentation =
            "Presentation: \(configuration.presentation)."
            + (configuration.focus == FocusSettings() ? "" : " Focus: \(configuration.focus).")
        let log = self.log
        Task.detached(executorPreference: DaemonExecutor.shared) {
            var lines = [presentation]
            for backend in backends where inUse.contains(backend.name) {
                if let description = await backend.describe() { lines.append("\(backend.name): \(description)") }
            }
            log.record(DaemonEvent(.backends, lines.joined(separator: " ")))
        }
    }
}
