/// A backend whose deliveries stay in view until the user or chimed closes them (the desktop's bubbles): what the
/// application interface lists with `GetDelivered` and closes with `RemoveDelivered`.
public protocol ShowingBackend: DeliveryBackend {
    /// The deliveries still shown, in the order they were put up.
    func shown() async -> [Delivery]

    /// Closes what is shown of the notifications `ids` (schedule ids); the rest stays.
    func close(notifications ids: Set<String>) async
}
