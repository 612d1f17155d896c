/// The desktop's settings database (GNOME's dconf), read as it is now. Kept behind this seam so that only chimed
/// links the library that reads it (`ChimeGLib`), not chimectl, and so that a test can hand in its own.
public protocol SettingsDatabase: Sendable {
    /// The boolean at `path` (such as `/org/gnome/desktop/notifications/show-banners`); `nil` when it was never set
    /// or holds something else.
    func boolean(at path: String) -> Bool?
}
