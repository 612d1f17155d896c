import ChimeCore
import ChimeDaemon
import Foundation
import Glibc

/// The sound helper's side (`chime-sound`): commands from stdin (`SoundHelperMessages.Command`), playbacks on
/// `player`, their endings to stdout. It ends when stdin does (chimed is gone), or once nothing has played and
/// nothing was asked for `idleLimit`: chimed starts it again at the next sound.
public final class SoundHelperService: Sendable {
    private let player: any SoundPlaying
    private let idleLimit: Duration
    private let state = Locked<State>(State())
    /// Lines written to stdout, counted under the lock that keeps two endings' lines apart. (A `Locked` of a
    /// value of no size would have ThreadSanitizer take the inout access for one at the lock's own address.)
    private let linesWritten = Locked(0)

    private struct State {
        var playing: [UInt64: SoundSequence] = [:]
        var lastActivity = ContinuousClock.now
    }

    /// The longest line read: a command is a few hundred bytes, a spoken title and body a few thousand.
    static let maximumLine = 64 * 1024

    public init(player: any SoundPlaying, idleLimit: Duration) {
        self.player = player
        self.idleLimit = idleLimit
    }

    /// Serves until stdin ends or the helper has been idle for `idleLimit`; then exits.
    public func run() -> Never {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1000)
            if ready == 0 {
                if isIdle { exit(0) }
                continue
            }
            if ready < 0 {
                if errno == EINTR { continue }
                exit(1)
            }
            let count = read(0, &chunk, chunk.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { exit(0) }
            buffer += chunk[0..<count]
            while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                handle(Data(buffer[..<end]))
                buffer.removeSubrange(...end)
            }
            // A line past the bound is not a command chimed would send: dropped.
            if buffer.count > Self.maximumLine { buffer = [] }
        }
    }

    private var isIdle: Bool {
        state.withLock { $0.playing.isEmpty && ContinuousClock.now - $0.lastActivity >= idleLimit }
    }

    private func handle(_ line: Data) {
        guard let command = try? JSONDecoder().decode(SoundHelperMessages.Command.self, from: line) else { return }
        let token = command.token
        guard let playback = command.play else {
            let slot = state.withLock { state in
                state.lastActivity = .now
                return state.playing.removeValue(forKey: token)
            }
            slot?.stop()
            return
        }
        // Noted before the player starts, which may answer before `play` returns.
        let slot = SoundSequence()
        state.withLock { state in
            state.playing[token] = slot
            state.lastActivity = .now
        }
        slot.playing(
            player.play(playback.request) { [self] ending in
                state.withLock { state in
                    state.playing[token] = nil
                    state.lastActivity = .now
                }
                send(SoundHelperMessages.Ending(token: token, ending: ending))
            })
    }

    private func send(_ ending: SoundHelperMessages.Ending) {
        let line = SoundHelperMessages.line(ending)
        linesWritten.withLock { count in
            count += 1
            line.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(1, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        exit(0)
                    }
                    offset += written
                }
            }
        }
    }
}
