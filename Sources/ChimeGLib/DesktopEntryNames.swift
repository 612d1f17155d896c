import CGio
import ChimeDaemon
import Foundation

/// Applications' names from their desktop entries (`ID.desktop` under `applications/` of the XDG data
/// directories), read with GIO, which keeps to the Desktop Entry specification: the first directory holding the
/// id wins, `Hidden=true` hides it, an id with `-` may be in a subdirectory, and `Name=` is taken in the person's
/// language (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`).
///
/// GIO watches the directories it has read from a thread of its own, so an application installed while chimed
/// runs is found without a main loop. The name is the person's own file's text, not the application's: still, it
/// is shown as one line of limited length.
public struct DesktopEntryNames: ApplicationNames {
    static let maximumLength = 128

    public init() {}

    public func name(of appID: String) -> String? {
        guard let info = g_desktop_app_info_new(appID + ".desktop") else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        guard let name = g_app_info_get_name(info) else { return nil }
        return Self.shown(String(cString: name))
    }

    /// `name` as one line of at most `maximumLength` characters; `nil` when nothing is left.
    static func shown(_ name: String) -> String? {
        var printable = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            printable.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        let line = String(printable).trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return nil }
        return line.count > maximumLength ? String(line.prefix(maximumLength - 1)) + "…" : line
    }
}
