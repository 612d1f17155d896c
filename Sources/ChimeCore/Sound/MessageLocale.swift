/// The locale of messages as `LC_MESSAGES` resolves it from an environment: `LC_ALL`, then `LC_MESSAGES`, then
/// `LANG`, the first that is set and not empty. What a sound theme's localized sounds and speech are chosen by.
public enum MessageLocale {
    public static func resolve(_ environment: [String: String]) -> String? {
        ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }
}
