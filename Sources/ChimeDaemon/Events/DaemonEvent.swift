import ChimeCore
import Foundation

/// Something the daemon did or found, for the journal: one structured entry per event, its kind named by a
/// `MESSAGE_ID` that `systemd/chime.catalog` explains (`journalctl -x`).
public struct DaemonEvent: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case delivered
        case skippedPast = "skipped-past"
        case missed
        case caughtUp = "caught-up"
        case deliveryFailed = "delivery-failed"
        case reloaded
        case configError = "config-error"
        case stateError = "state-error"
        case systemError = "system-error"
        case started
        case stopping
        case clockChanged = "clock-changed"
        case actionInvoked = "action-invoked"
        case closed
        case backends
        case quietBegan = "quiet-began"
        case quietEnded = "quiet-ended"
        case held
        case passedQuiet = "passed-quiet"
        case released
        case journalOnly = "journal-only"
        case dropped
        case acknowledged
        case sleeping
        case resumed
        case wokeSystem = "woke-system"

        /// The journal `MESSAGE_ID` of this kind of event (stable: tools filter by it).
        public var messageID: String {
            switch self {
            case .delivered: return "e73fb9a22fd0422fa10f6ec70955e821"
            case .skippedPast: return "c5a91bf5289944c193a3a6ed56d5a886"
            case .missed: return "e757ae2da8694a3b87e5cd6e6cc95410"
            case .caughtUp: return "1b48d743909e43f5990e730ec5644e93"
            case .deliveryFailed: return "0836a9145a544733a696f3d6d1372b6b"
            case .reloaded: return "1f219778db274aaaafe1e1dc21c442ed"
            case .configError: return "8c44231129914d17b3df15853b9facd7"
            case .stateError: return "f5cab064a0f44e8e997a4b8ed031afc7"
            case .systemError: return "b9b3339a991e41dba5f9db27317d5526"
            case .started: return "9a5838614da94a77b89621fad75a201c"
            case .stopping: return "ac89a68c223a4400ad99c153e1e8c9c2"
            case .clockChanged: return "194f544c0b8842109e95d0b112e8e938"
            case .actionInvoked: return "9641792c00934eaebfc610dd120d47a5"
            case .closed: return "788420d591e34bdd9d8957a7e376334a"
            case .backends: return "c6cf968d9b954dc9b9e3c1e5d93ac46d"
            case .quietBegan: return "7bb2cbb306de44e78a91f319cc7aa96e"
            case .quietEnded: return "7fe5a3feb29842dbb07896f68bfbe6cc"
            case .held: return "fdb8053714c84c9ba47124795f08723f"
            case .passedQuiet: return "84dc9ecee0b14e8bb535ccb120b9e76a"
            case .released: return "22f368ac039349c8a49018e627ecbc10"
            case .journalOnly: return "9979081120294fd88ef84c67a7d00e32"
            case .dropped: return "37acdffdddd34218a3415bd3fbf0f31d"
            case .acknowledged: return "6dbc545135fd4e95b491ddd17c1af336"
            case .sleeping: return "458629f680304fd4829cad0a6d523d61"
            case .resumed: return "b8b093288bbc4556a07c836838fc140a"
            case .wokeSystem: return "b051f6f925e242ffb02595f8a5f56092"
            }
        }

        /// The priority of an event of this kind, unless the event says otherwise.
        public var priority: Priority {
            switch self {
            case .deliveryFailed, .configError, .stateError: return .error
            case .missed, .skippedPast, .systemError: return .warning
            case .clockChanged, .reloaded, .started, .stopping, .quietBegan, .quietEnded, .dropped, .sleeping, .resumed,
                .wokeSystem:
                return .notice
            case .delivered, .caughtUp, .actionInvoked, .closed, .backends, .held, .passedQuiet, .released,
                .journalOnly, .acknowledged:
                return .info
            }
        }
    }

    /// The syslog priorities chime uses, as the journal's `PRIORITY=` numbers them.
    public enum Priority: Int, Sendable, Comparable {
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6

        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
    }

    public var kind: Kind
    /// The priority of this entry: the kind's, unless a particular event is milder or graver.
    public var priority: Priority
    /// The human-readable `MESSAGE`.
    public var message: String
    /// Further journal fields (`CHIME_ID`, `CHIME_FIRE_TIME`, …), in order; names are upper case.
    public var fields: [(name: String, value: String)]

    public init(
        _ kind: Kind, _ message: String, fields: [(name: String, value: String)] = [], priority: Priority? = nil
    ) {
        self.kind = kind
        self.priority = priority ?? kind.priority
        self.message = message
        self.fields = fields
    }

    /// All fields of the journal entry: `MESSAGE`, `MESSAGE_ID`, `PRIORITY`, then the event's own.
    public var journalFields: [(name: String, value: String)] {
        [("MESSAGE", message), ("MESSAGE_ID", kind.messageID), ("PRIORITY", String(priority.rawValue))] + fields
    }
}

/// Where daemon events go: the journal in production, a recording list in tests.
public protocol EventLog: Sendable {
    func record(_ event: DaemonEvent)
}
