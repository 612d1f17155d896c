import ChimeCore

/// Whether the desktop's notification server plays the sounds a bubble asks for (its `sound` capability), as the
/// desktop backend last learnt it: the sound stage leaves a plain short sound to such a server instead of playing it
/// too. Unknown (no server asked yet, or the server changed) counts as no: chime plays and asks the server for quiet,
/// so a sound is never heard twice and never missed.
public final class ServerSoundCapability: Sendable {
    private let plays = Locked<Bool?>(nil)

    public init() {}

    public var playsSounds: Bool { plays.withLock { $0 ?? false } }

    /// The server's capabilities, or `nil` when they are no longer known.
    func learn(_ capabilities: [String]?) {
        plays.withLock { $0 = capabilities.map { $0.contains("sound") } }
    }
}
