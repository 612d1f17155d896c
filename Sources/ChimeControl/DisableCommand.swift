import ChimeCore
import ChimeDaemon
import ChimePlatform
import Foundation

/// `chimectl disable`: switches file-defined notifications off with a drop-in, leaving their files alone (as
/// `systemctl mask` leaves a unit's file alone).
struct DisableCommand: Command {
    static let name = "disable"
    static let summary = "Switch notifications defined by files off, with a drop-in"
    static let usage = "chimectl disable [--user] [--config-dir=DIR] ID..."
    static let help = """
        Switches each notification ID that a file in the configuration directories defines off, by writing the
        drop-in ID.notification.d/\(DisableDropIn.fileName) ("[Notification]" "Enabled=no") into the first
        configuration directory, and makes chimed rebuild its schedule. The notification's own files are not
        changed; 'chimectl enable ID' removes the drop-in. Notifications added with 'chimectl add' are
        cancelled instead ('chimectl cancel ID').

        Options:
          --user                the calling user's instance
          --config-dir=DIR      the instance's configuration directories; the drop-in goes into the first
          --state-dir=DIR       the instance's state directory
          --runtime-dir=DIR     the instance's runtime directory
          -h, --help            show this help

        Exit status: 0 when every ID is disabled, 1 when one is not (for instance because a later drop-in
        enables it again), 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar.instance()

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        try DisableDropIn.run(arguments, in: context, disable: true)
    }
}

/// `chimectl enable`: removes the drop-in of `chimectl disable`.
struct EnableCommand: Command {
    static let name = "enable"
    static let summary = "Switch notifications back on that 'chimectl disable' switched off"
    static let usage = "chimectl enable [--user] [--config-dir=DIR] ID..."
    static let help = """
        Removes the drop-in ID.notification.d/\(DisableDropIn.fileName) that 'chimectl disable' wrote into the
        first configuration directory, and makes chimed rebuild its schedule. If something else still keeps the
        notification off (Enabled=no in its file or in another drop-in, or a mask), says where.

        Options:
          --user                the calling user's instance
          --config-dir=DIR      the instance's configuration directories; the drop-in is in the first
          --state-dir=DIR       the instance's state directory
          --runtime-dir=DIR     the instance's runtime directory
          -h, --help            show this help

        Exit status: 0 when every ID is enabled, 1 when one is still off or unknown, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar.instance()

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        try DisableDropIn.run(arguments, in: context, disable: false)
    }
}

/// The drop-in `chimectl disable` writes and `chimectl enable` removes.
enum DisableDropIn {
    static let fileName = "50-chimectl-disable.conf"
    static let text = """
        # Written by 'chimectl disable'; 'chimectl enable' removes it.
        [Notification]
        Enabled=no

        """

    /// `FIRST_CONFIG_DIR/ID.notification.d/50-chimectl-disable.conf`.
    static func path(_ id: String, in view: InstanceView) -> String? {
        view.options.configDirectories.first.map { "\($0)/\(id).notification.d/\(fileName)" }
    }

    /// Whether the notification is off as it stands now, and what keeps it so.
    enum State {
        case enabled
        /// `Enabled=no`, last set at this location.
        case disabled(by: String)
        case masked(by: String)
        /// Does not load at all; the errors say why.
        case broken
    }

    static func state(of file: NotificationFile, context: CommandContext) -> State {
        guard case .loaded(let unit) = file.content else { return .masked(by: file.path) }
        let result = NotificationLoader(systemZone: context.localZone, zones: context.zones).load(file)
        guard let notification = result.notification else { return .broken }
        if notification.isEnabled { return .enabled }
        let entry = unit.lastValue(for: "Enabled", in: "Notification")
        return .disabled(by: entry.map { "\($0.location)" } ?? file.path)
    }

    static func run(_ arguments: ParsedArguments, in context: CommandContext, disable: Bool) throws -> ExitCode {
        guard !arguments.operands.isEmpty else { throw UsageError("expected the IDs of notifications") }
        let verb = disable ? "disable" : "enable"
        let view = InstanceView(arguments, environment: context.environment)
        var status = ExitCode.success
        var changed = false
        for id in arguments.operands {
            do {
                changed = try apply(id, disable: disable, view: view, context: context) || changed
            } catch {
                context.errors.line("chimectl \(verb): \(error)")
                status = .failure
            }
        }
        if changed && view.isRunning {
            do {
                _ = try view.rebuild(waiting: { context.errors.line("chimectl: \($0)") })
            } catch {
                context.errors.line("chimectl \(verb): \(error)")
                status = .failure
            }
        }
        return status
    }

    /// Disables or enables `id`; returns whether a file changed. Throws when the notification does not end up in
    /// the state asked for.
    private static func apply(_ id: String, disable: Bool, view: InstanceView, context: CommandContext) throws -> Bool {
        guard NotificationLoader.isValidID(id), let file = view.configuredFile(id), let path = path(id, in: view)
        else {
            if NotificationLoader.isValidID(id), FileManager.default.fileExists(atPath: view.addedPath(id)) {
                throw CommandFailure("'\(id)' was added at run time; 'chimectl cancel \(id)' removes it")
            }
            throw CommandFailure(
                "no notification '\(id)' in \(view.options.configDirectories.joined(separator: ", "))")
        }
        let exists = FileManager.default.fileExists(atPath: path)
        var changed = false
        if disable && !exists {
            try view.requireWritable((path as NSString).deletingLastPathComponent)
            do {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try AtomicFile.write(text, to: path)
            } catch {
                throw CommandFailure("cannot write \(path): \(error)")
            }
            changed = true
        } else if !disable && exists {
            try view.requireWritable((path as NSString).deletingLastPathComponent)
            guard unlink(path) == 0 else {
                throw CommandFailure("cannot remove \(path): \(String(cString: strerror(errno)))")
            }
            // The directory goes too when the drop-in was all it held, as `disable` may have made it.
            _ = rmdir((path as NSString).deletingLastPathComponent)
            changed = true
        }
        let state = view.configuredFile(id).map { self.state(of: $0, context: context) } ?? .broken
        switch (disable, state) {
        case (true, .disabled), (true, .masked):
            context.output.line(changed ? "Disabled \(id) (\(path))." : "\(id) is disabled already.")
        case (true, .enabled):
            throw CommandFailure("'\(id)' stays enabled: a drop-in after \(path) sets Enabled= again")
        case (false, .enabled):
            context.output.line(changed ? "Enabled \(id) (removed \(path))." : "\(id) is enabled already.")
        case (false, .disabled(let location)):
            throw CommandFailure("'\(id)' is still disabled: Enabled=no at \(location)")
        case (false, .masked(let mask)):
            throw CommandFailure("'\(id)' is still off: masked by \(mask)")
        case (_, .broken):
            throw CommandFailure(
                "'\(id)' has errors and does not load ('chimectl verify \(file.path)' shows them)"
                    + (changed ? "; \(disable ? "wrote" : "removed") \(path) all the same" : ""))
        }
        return changed
    }
}
