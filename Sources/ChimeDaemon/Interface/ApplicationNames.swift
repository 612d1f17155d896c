/// What the person knows an application by: the name in its desktop entry. Kept behind this seam so that only
/// chimed links the library that reads desktop entries (`ChimeGLib`), and so that a test can hand in its own.
public protocol ApplicationNames: Sendable {
    /// The name of application `appID` (a desktop-file id such as `org.example.Reminders`) in the person's
    /// language: one line of at most 128 characters, never text the application sent; `nil` when it has no
    /// desktop entry.
    func name(of appID: String) -> String?
}
