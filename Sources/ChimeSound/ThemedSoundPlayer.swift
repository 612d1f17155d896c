import ChimeCore
import ChimeDaemon
import Glibc

/// chimed's player (`SoundPlaying`): a sound name is looked up in the request's XDG sound theme (which inherits
/// `freedesktop`) in the language of the locale, a path is taken as it is, and `SoundPlayer` plays the file; then
/// the speech, if any, rendered by `SpeechRenderer`, is played the same way.
public struct ThemedSoundPlayer: SoundPlaying {
    private let environment: [String: String]
    private let speech: SpeechRenderer
    private let player = SoundPlayer()

    /// - Parameters:
    ///   - environment: chimed's (`XDG_DATA_HOME`, `XDG_DATA_DIRS`, `HOME`, the locale).
    ///   - scratchDirectory: where speech is rendered to files (chimed's runtime directory).
    public init(environment: [String: String], scratchDirectory: String) {
        self.environment = environment
        speech = SpeechRenderer(directory: scratchDirectory)
    }

    public func play(_ request: SoundRequest, finished: @escaping @Sendable (SoundEnding) -> Void) -> any SoundStopping
    {
        let sequence = SoundSequence()
        Task {
            var ending = SoundEnding.played
            if let sound = request.sound {
                switch locate(sound, theme: request.theme) {
                case .success(let file?):
                    ending = await play(file, request, in: sequence)
                case .success(nil):
                    break
                case .failure(let problem):
                    ending = .failed(problem.reason)
                }
            }
            if let text = request.speech, ending != .stopped, !sequence.isStopped {
                let spoken: SoundEnding
                switch await speech.render(text, language: request.language) {
                case .success(let file):
                    var once = request
                    once.ringing = nil
                    once.fadeIn = .zero
                    spoken = await play(file, once, in: sequence)
                    unlink(file)
                case .failure(let problem):
                    spoken = .failed(problem.reason)
                }
                if case .failed = ending {} else { ending = spoken }
            }
            finished(sequence.isStopped ? .stopped : ending)
        }
        return sequence
    }

    /// Plays `file` as `request` says, as the current part of `sequence`, to its end.
    private func play(_ file: String, _ request: SoundRequest, in sequence: SoundSequence) async -> SoundEnding {
        let playback = SoundPlayback(
            file: file, volume: Double(request.volume) / 100, ringing: request.ringing, fadeIn: request.fadeIn)
        return await withCheckedContinuation { done in
            let ringing = player.play(playback) { done.resume(returning: $0) }
            sequence.playing(ringing)
        }
    }

    private struct Unplayable: Error {
        var reason: String
    }

    /// The file to play; `nil` when the theme turns the sound off.
    private func locate(_ sound: String, theme name: String) -> Result<String?, Unplayable> {
        guard let file = find(sound, theme: name) else { return .success(nil) }
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

    /// The file a sound names: a path as it is, a name through the theme; `nil` when the theme turns it off.
    private func find(_ sound: String, theme name: String) -> Result<String, Unplayable>? {
        if sound.hasPrefix("/") { return .success(sound) }
        let theme = SoundTheme(
            name: name, baseDirectories: SoundTheme.baseDirectories(environment: environment),
            locale: SoundTheme.locale(environment: environment))
        switch theme.lookup(sound) {
        case .file(let path): return .success(path)
        case .disabled: return nil
        case nil:
            return .failure(
                Unplayable(
                    reason: "no sound '\(sound)' in the sound theme '\(name)' or those it inherits "
                        + "(the freedesktop theme is in Debian's sound-theme-freedesktop)"))
        }
    }
}
