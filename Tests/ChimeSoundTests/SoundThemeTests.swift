import ChimeSound
import ChimeTestSupport
import Foundation
import Testing

/// The XDG Sound Theme specification's lookup, on themes laid out in a temporary directory, and on the real
/// freedesktop theme where it is installed.
struct SoundThemeTests {
    /// Two base directories (the person's, then the system's) with a theme `birch` that inherits from `wood`, and
    /// the freedesktop theme.
    static func themes() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "chime-sounds")
        let files = [
            "user/birch/index.theme": "[Sound Theme]\nName=Birch\nComment=c\nInherits=wood\nDirectories=stereo,5.1\n"
                + "[stereo]\nOutputProfile=stereo\n[5.1]\nOutputProfile=5.1\n",
            "user/birch/stereo/bell.oga": "",
            "system/birch/stereo/bell.wav": "",
            "system/birch/stereo/chime.wav": "",
            "system/birch/5.1/chime.oga": "",
            "system/birch/stereo/de/chime.oga": "",
            "system/birch/stereo/quiet.disabled": "",
            "system/birch/stereo/quiet.oga": "",
            "system/wood/index.theme":
                "[Sound Theme]\nName=Wood\nComment=c\nDirectories=stereo\n[stereo]\nOutputProfile=stereo\n",
            "system/wood/stereo/message-new.oga": "",
            "system/wood/stereo/alarm.oga": "",
            "system/freedesktop/index.theme": "[Sound Theme]\nName=Default\nComment=c\nDirectories=stereo\n"
                + "[stereo]\nOutputProfile=stereo\n",
            "system/freedesktop/stereo/alarm-clock-elapsed.oga": "",
            "system/freedesktop/stereo/bell.oga": "",
            "system/unthemed.wav": "",
        ]
        for (name, contents) in files { try directory.write(name, contents) }
        return directory
    }

    static func theme(_ directory: TemporaryDirectory, locale: String? = nil, profile: String = "stereo") -> SoundTheme
    {
        SoundTheme(
            name: "birch", baseDirectories: [directory.path + "/user", directory.path + "/system"], locale: locale,
            outputProfile: profile)
    }

    @Test func aNameIsFoundInTheThemeItsParentsFreedesktopAndUnthemedInThatOrder() throws {
        let directory = try Self.themes()
        defer { directory.remove() }
        let theme = Self.theme(directory)
        // The person's base directory first; within it, .oga before .wav.
        #expect(theme.lookup("bell") == .file(directory.path + "/user/birch/stereo/bell.oga"))
        #expect(theme.lookup("chime") == .file(directory.path + "/system/birch/stereo/chime.wav"))
        // Inherited, then the freedesktop theme, then unthemed sounds.
        #expect(theme.lookup("alarm") == .file(directory.path + "/system/wood/stereo/alarm.oga"))
        #expect(
            theme.lookup("alarm-clock-elapsed")
                == .file(directory.path + "/system/freedesktop/stereo/alarm-clock-elapsed.oga"))
        #expect(theme.lookup("unthemed") == .file(directory.path + "/system/unthemed.wav"))
        // Not found whole: without its last part, in every theme again (message-new-instant → message-new).
        #expect(theme.lookup("message-new-instant") == .file(directory.path + "/system/wood/stereo/message-new.oga"))
        #expect(theme.lookup("alarm-clock") == .file(directory.path + "/system/wood/stereo/alarm.oga"))
        #expect(theme.lookup("gong") == nil)
        // A theme turns a sound off with a .disabled file.
        #expect(theme.lookup("quiet") == .disabled)
    }

    @Test func theLanguageAndTheOutputProfileComeFirst() throws {
        let directory = try Self.themes()
        defer { directory.remove() }
        let german = directory.path + "/system/birch/stereo/de/chime.oga"
        for locale in ["de_DE.UTF-8", "de_AT@euro", "de"] {
            #expect(Self.theme(directory, locale: locale).lookup("chime") == .file(german), "\(locale)")
        }
        #expect(Self.theme(directory, locale: "fr_FR.UTF-8").lookup("chime") != .file(german))
        #expect(
            Self.theme(directory, profile: "5.1").lookup("chime")
                == .file(directory.path + "/system/birch/5.1/chime.oga"))
        // A profile the theme does not have: stereo.
        #expect(
            Self.theme(directory, profile: "7.1").lookup("bell")
                == .file(directory.path + "/user/birch/stereo/bell.oga"))
    }

    @Test func namesThatArePathsAndThemesThatInheritInALoopAreHarmless() throws {
        let directory = try Self.themes()
        defer { directory.remove() }
        try directory.write(
            "system/loop/index.theme", "[Sound Theme]\nName=L\nComment=c\nInherits=loop,birch\nDirectories=stereo\n")
        let loop = SoundTheme(name: "loop", baseDirectories: [directory.path + "/user", directory.path + "/system"])
        #expect(loop.lookup("alarm") == .file(directory.path + "/system/wood/stereo/alarm.oga"))
        for name in ["../wood/stereo/alarm", "/etc/passwd", ".hidden", "", "-"] {
            #expect(loop.lookup(name) == nil, "\(name)")
        }
    }

    @Test func theBaseDirectoriesFollowTheXDGVariables() {
        #expect(
            SoundTheme.baseDirectories(environment: ["HOME": "/home/a"])
                == ["/home/a/.local/share/sounds", "/usr/local/share/sounds", "/usr/share/sounds"])
        #expect(
            SoundTheme.baseDirectories(environment: ["XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/x:relative:/y"])
                == ["/d/sounds", "/x/sounds", "/y/sounds"])
        #expect(SoundTheme.locale(environment: ["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR"]) == "fr_FR")
    }

    /// The freedesktop theme as Debian installs it (sound-theme-freedesktop).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/sounds/freedesktop/index.theme")))
    func theInstalledFreedesktopThemeHasTheAlarmAndTheMessageSounds() {
        let theme = SoundTheme(baseDirectories: SoundTheme.baseDirectories(environment: ["HOME": "/nonexistent"]))
        #expect(
            theme.lookup("alarm-clock-elapsed") == .file("/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga")
        )
        #expect(
            theme.lookup("message-new-instant") == .file("/usr/share/sounds/freedesktop/stereo/message-new-instant.oga")
        )
    }
}
