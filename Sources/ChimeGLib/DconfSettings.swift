import CDconf
import ChimeCore
import ChimeDaemon

/// GNOME's settings database read in-process with dconf's own client library: the user's database file and the
/// system's, as the dconf profile names them, without a process and without the bus (a read only looks at files;
/// dconf's writer marks a changed database in shared memory, so every read sees the last write).
///
/// The client is made at the first read, so an instance that never reads (a system service) never opens the
/// profile. dconf's client is safe to read from any thread; the lock only makes it once.
public final class DconfSettings: SettingsDatabase, Sendable {
    private let client = Locked<OpaquePointer?>(nil)

    public init() {}

    deinit {
        client.withLock { pointer in
            if let pointer { g_object_unref(UnsafeMutableRawPointer(pointer)) }
        }
    }

    public func boolean(at path: String) -> Bool? {
        let client = client.withLock { pointer in
            if pointer == nil { pointer = dconf_client_new() }
            return pointer
        }
        guard let client, let value = dconf_client_read(client, path) else { return nil }
        defer { g_variant_unref(value) }
        guard String(cString: g_variant_get_type_string(value)) == "b" else { return nil }
        return g_variant_get_boolean(value) != 0
    }
}
