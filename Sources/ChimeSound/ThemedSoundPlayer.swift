import ChimeCore
import ChimeDaemon
import Glibc

/// chimed's player (`SoundPlaying`): a sound name is looked up in the request's XDG sound theme (which inherits
/// `freedesktop`) in the language of the locale, a path is taken as it is, and `SoundPlayer` plays the file.
public struct ThemedSoundPlayer: SoundPlaying {
    private let environment: [String: String]
    private let player = SoundPlayer()

    /// - Parameter environment: chimed's (`XDG_DATA_HOME`, `XDG_DATA_DIRS`, `HOME`, the locale).
    public init(environment: [String: String]) {
        self.environment = environment
    }

    public func play(_ request: SoundRequest, finished: @escaping @Sendable (SoundEnding) -> Void) -> any SoundStopping
    {
        let file: String
        switch locate(request) {
        case .success(let found?):
            file = found
        case .success(nil):
            finished(.played)
            return SoundRinging()
        case .failure(let problem):
            finished(.failed(problem.reason))
            return SoundRinging()
        }
        let playback = SoundPlayback(
            file: file, volume: Double(request.volume) / 100, ringing: request.ringing, fadeIn: request.fadeIn)
        return player.play(playback) { outcome in
            switch outcome {
            case .played: finished(.played)
            case .stopped: finished(.stopped)
            case .failed(let reason): finished(.failed(reason))
            }
        }
    }

    private struct Unplayable: Error {
        var reason: String
    }

    /// The file to play; `nil` when the theme turns the sound off.
    private func locate(_ request: SoundRequest) -> Result<String?, Unplayable> {
        guard let file = find(request) else { return .success(nil) }
        return file.flatMap { path in
            // Opening a FIFO would block the playback for good, and a device such as /dev/zero never ends.
            var status = stat()
            guard stat(path, &status) == 0 else {
                return .failure(Unplayable(reason: "cannot read \(path): \(String(cString: strerror(errno)))"))
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                return .failure(Unplayable(reason: "\(path) is not a regular file"))
            }
            return .success(path)
        }
    }

    /// The file a request names: a path as it is, a name through the theme; `nil` when the theme turns it off.
    private func find(_ request: SoundRequest) -> Result<String, Unplayable>? {
        if request.sound.hasPrefix("/") { return .success(request.sound) }
        let theme = SoundTheme(
            name: request.theme, baseDirectories: SoundTheme.baseDirectories(environment: environment),
            locale: SoundTheme.locale(environment: environment))
        switch theme.lookup(request.sound) {
        case .file(let path): return .success(path)
        case .disabled: return nil
        case nil:
            return .failure(
                Unplayable(
                    reason: "no sound '\(request.sound)' in the sound theme '\(request.theme)' or those it inherits "
                        + "(the freedesktop theme is in Debian's sound-theme-freedesktop)"))
        }
    }
}

extension SoundRinging: SoundStopping {}
