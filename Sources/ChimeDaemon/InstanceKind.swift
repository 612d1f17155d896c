/// Which chime instance a program talks to: the system-wide one or the calling user's.
public enum InstanceKind: Sendable, Equatable {
    case system
    case user
}
