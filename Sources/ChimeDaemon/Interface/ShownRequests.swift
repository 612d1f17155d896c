import ChimeSystemd
import Foundation

/// An application's notifications that backends still show (the desktop's bubbles, `ShowingBackend`): what
/// `GetDelivered` lists and `RemoveDelivered` closes.
struct ShownRequests: Sendable {
    let backends: [any ShowingBackend]
    /// The schedule ids of the application's requests begin with it (`APP_ID:`).
    let prefix: String

    init(backends: [any ShowingBackend], appID: String) {
        self.backends = backends
        prefix = ApplicationRequests.scheduleID(appID: appID, id: "")
    }

    /// A shown notification: its id, its content as `Add` takes it, and the occurrence's time.
    typealias Shown = (id: String, content: BusRequestEntries.Entries, fire: Date)

    /// Each shown notification of the application, oldest first.
    func list() async -> [Shown] {
        var shown: [Delivery] = []
        for backend in backends { shown += await backend.shown() }
        return shown.filter { $0.notification.id.hasPrefix(prefix) }.map { delivery in
            (
                id: String(delivery.notification.id.dropFirst(prefix.count)),
                content: BusRequestEntries.content(of: delivery.notification),
                fire: delivery.fireTime
            )
        }
    }

    /// Closes what is shown of the application's notifications `ids`, or of all of them (`nil`).
    func close(_ ids: [String]?) async {
        for backend in backends {
            let closing =
                if let ids {
                    Set(ids.map { prefix + $0 })
                } else {
                    Set(await backend.shown().map(\.notification.id).filter { $0.hasPrefix(prefix) })
                }
            await backend.close(notifications: closing)
        }
    }
}
