import Foundation

/// How each type of backend is made from its settings: the seam where `chimed` plugs in backends that live in
/// targets of their own (the webhook backend, which needs FoundationNetworking) and tests plug in spies.
public struct BackendFactories: Sendable {
    public var journal: @Sendable () -> any DeliveryBackend = { JournalBackend() }
    public var stdout: @Sendable () -> any DeliveryBackend = { StandardOutputBackend() }
    public var desktop: (@Sendable (DesktopSettings, BackendContext) -> any DeliveryBackend)? = {
        DesktopBackend(settings: $0, context: $1)
    }
    public var command: (@Sendable (CommandSettings, BackendContext) -> any DeliveryBackend)? = {
        CommandBackend(settings: $0, context: $1)
    }
    public var webhook: (@Sendable (WebhookSettings, BackendContext) -> any DeliveryBackend)?
    public var apprise: (@Sendable (AppriseSettings, BackendContext) -> any DeliveryBackend)? = {
        AppriseBackend(settings: $0, context: $1)
    }

    public init() {}
}

/// Builds the backends chimed.conf describes, and at each reload keeps the ones whose settings did not change, so
/// that a backend's connections and memory (the desktop server's bubbles, for replacing and for actions) survive a
/// SIGHUP.
public final class BackendRegistry: @unchecked Sendable {
    private let factories: BackendFactories
    private let context: BackendContext
    /// The backends built so far, by name, with a description of the settings each was built from.
    private var built: [String: (settings: String, backend: any DeliveryBackend)] = [:]

    public init(factories: BackendFactories, context: BackendContext) {
        self.factories = factories
        self.context = context
    }

    /// The backends for `configuration`: every built-in name and every named `[Command]`, `[Webhook]` and
    /// `[Apprise]`.
    /// A type this chimed was built without delivers nothing and says so (`UnsupportedBackend`).
    public func backends(for configuration: DaemonConfiguration) -> [any DeliveryBackend] {
        var result: [any DeliveryBackend] = [
            reuse("journal", "", factories.journal), reuse("stdout", "", factories.stdout),
        ]
        result.append(make(configuration.desktop.name, "desktop", configuration.desktop, factories.desktop))
        for settings in configuration.commands {
            result.append(make(settings.name, "command", settings, factories.command))
        }
        for settings in configuration.webhooks {
            result.append(make(settings.name, "webhook", settings, factories.webhook))
        }
        for settings in configuration.apprises {
            result.append(make(settings.name, "apprise", settings, factories.apprise))
        }
        let names = Set(result.map(\.name))
        built = built.filter { names.contains($0.key) }
        return result
    }

    /// The backends built for the current configuration that keep their deliveries in view (the desktop's).
    public var showing: [any ShowingBackend] {
        built.values.compactMap { $0.backend as? any ShowingBackend }
    }

    private func make<Settings>(
        _ name: String, _ type: String, _ settings: Settings,
        _ factory: (@Sendable (Settings, BackendContext) -> any DeliveryBackend)?
    ) -> any DeliveryBackend {
        guard let factory else { return UnsupportedBackend(name: name, type: type) }
        let context = self.context
        return reuse(name, String(reflecting: settings)) { factory(settings, context) }
    }

    private func reuse(_ name: String, _ settings: String, _ make: () -> any DeliveryBackend) -> any DeliveryBackend {
        if let previous = built[name], previous.settings == settings { return previous.backend }
        let backend = make()
        built[name] = (settings, backend)
        return backend
    }
}

/// A type of backend this program cannot deliver to (`chimectl fire` posts no webhooks): every delivery fails,
/// saying so.
struct UnsupportedBackend: DeliveryBackend {
    let name: String
    let type: String

    func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        throw UnsupportedBackendError(name: name, type: type)
    }
}

struct UnsupportedBackendError: Error, CustomStringConvertible {
    let name: String
    let type: String
    var description: String {
        "cannot deliver to '\(name)' here: \(type) backends are only available in chimed"
    }
}
