/// Where the notification of a delivery came from, as the load found it: what decides whose badge it changes and
/// whom it is signalled to, without looking at its id or at files when it is delivered.
public enum DeliveryOrigin: Sendable, Equatable {
    /// A notification file of the configuration directories (or a delivery chimed makes, such as a summary).
    case file
    /// A line of a generator's output.
    case generator
    /// A request of `chimectl add`.
    case added
    /// The request `id` of application `appID` (its id in the schedule is `APP_ID:ID`).
    case application(appID: String, id: String)

    /// The application whose request it is, if it is one.
    public var appID: String? {
        if case .application(let appID, _) = self { return appID }
        return nil
    }
}
