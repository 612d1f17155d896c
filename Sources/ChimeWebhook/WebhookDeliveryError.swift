/// Why a webhook delivery failed: how many attempts were made to which server, and how the last one went.
///
/// The text names only the URL's scheme, host and port: a webhook URL's path or query often is the secret, as
/// header values are, and the text goes to the journal.
public struct WebhookDeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// No `URL=` in the backend's section.
        case notConfigured
        /// The settings are invalid; the validation's message.
        case invalidSettings(String)
        /// The attempts made, and the last one's outcome.
        case gaveUp(attempts: Int, last: String)
    }

    public var reason: Reason
    /// `scheme://host[:port]` of the URL, when there is one.
    public var origin: String?

    public var description: String {
        switch reason {
        case .notConfigured:
            return "not configured: set URL= in [Webhook] of chimed.conf"
        case .invalidSettings(let message):
            return message
        case .gaveUp(let attempts, let last):
            let target = origin.map { " to \($0)" } ?? ""
            return "gave up after \(attempts) attempt\(attempts == 1 ? "" : "s")\(target): \(last)"
        }
    }
}
