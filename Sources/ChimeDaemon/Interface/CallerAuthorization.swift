import ChimeSystemd
import Glibc

/// Who may do what on the application interface (docs/security.md).
///
/// On the session bus, every caller is the user's own: it may name any app id, except a sandboxed (Flatpak) one,
/// which may only name its own. On the system bus, reading (`GetPending`, `GetDelivered`, `GetBadge`,
/// `GetSettings`) and changing (the rest) are polkit actions, `org.chime.notifications1.read` (everybody, by
/// default) and `org.chime.notifications1.manage` (administrators); root and chimed's own user pass without asking,
/// as they could write the files anyway.
struct CallerAuthorization: Sendable {
    enum Access: Sendable {
        case read, manage

        var polkitAction: String {
            switch self {
            case .read: "org.chime.notifications1.read"
            case .manage: "org.chime.notifications1.manage"
            }
        }
    }

    enum Bus: Sendable {
        case session
        case system(PolkitAuthority)
    }

    let bus: Bus
    /// chimed's own user.
    let ownUID: uid_t

    enum Verdict: Sendable {
        case allowed
        case refused(String)
        /// polkit decides (`refusal(asking:…)`).
        case askPolkit
    }

    /// What can be decided of `caller`'s `access` to `appID`'s notifications without asking anybody.
    func verdict(of caller: CallerIdentities.Caller, appID: String) -> Verdict {
        if let sandboxed = caller.sandboxedAppID, sandboxed != appID {
            return .refused("The caller runs sandboxed as \(sandboxed) and may only use its own app_id, not \(appID).")
        }
        guard case .system = bus, caller.credentials.uid != 0, caller.credentials.uid != ownUID else { return .allowed }
        return .askPolkit
    }

    /// polkit's answer for the caller `busName`: why it may not have `access` to `appID`'s notifications, or `nil`
    /// when it may.
    func refusal(asking busName: String, appID: String, access: Access, interactive: Bool) async -> String? {
        guard case .system(let polkit) = bus else { return nil }
        do {
            switch try await polkit.check(access.polkitAction, busName: busName, interactive: interactive) {
            case .authorized:
                return nil
            case .refused(let challenge):
                return "Not authorized to \(access == .read ? "read" : "change") the notifications of \(appID) "
                    + "(polkit action \(access.polkitAction)\(challenge ? "; it needs authentication" : ""))."
            }
        } catch {
            return "Cannot ask polkit whether the caller may do this (\(error)); refused."
        }
    }
}
