#!/usr/bin/python3
"""An application that chime launches from its notification, as an iOS app is launched from a local notification:
a GApplication (Gio, python3-gi) with the id org.example.Reminders.

    examples/exam-reminders.py schedule [--at=TIME]
        schedules the exam reminder through chimed (Badge=+1, Info=room=4B, an "open" action) and exits;
    examples/exam-reminders.py --gapplication-service
        how the session bus starts it (org.example.Reminders.service, D-Bus activation): when the user clicks the
        bubble or its "Open" action, chimed activates it; it prints what it was launched from, clears its badge and
        quits.

TIME is as a notification file's At= takes it; default: a minute from now.
"""

import sys
import time

from gi.repository import Gio, GLib

APP_ID = "org.example.Reminders"


def chime():
    return Gio.DBusProxy.new_for_bus_sync(
        Gio.BusType.SESSION, Gio.DBusProxyFlags.DO_NOT_LOAD_PROPERTIES, None,
        "org.chime.Notifications1", "/org/chime/Notifications1", "org.chime.Notifications1", None)


def say(command_line, text):
    """Prints on the terminal the command line came from: this process's, or another instance's."""
    if command_line.get_is_remote():
        command_line.print_literal(text)
    else:
        print(text, end="", flush=True)


class Reminders(Gio.Application):
    def __init__(self):
        super().__init__(application_id=APP_ID, flags=Gio.ApplicationFlags.HANDLES_COMMAND_LINE)
        self.launched_from = {}
        self.add_main_option("at", 0, GLib.OptionFlags.NONE, GLib.OptionArg.STRING, "when the reminder fires", "TIME")
        # The bubble's "Open" action: chimed calls ActivateAction("open", [<request id>], platform data).
        action = Gio.SimpleAction.new("open", GLib.VariantType.new("s"))
        action.connect("activate", lambda _action, parameter: self.launched("open", parameter.get_string()))
        self.add_action(action)

    def do_before_emit(self, platform_data):
        # chimed's platform data: chime-id, chime-action and chime-info (KEY=VALUE strings).
        self.launched_from = {key: platform_data.lookup_value(key, None) for key in ("chime-id", "chime-action", "chime-info")}
        Gio.Application.do_before_emit(self, platform_data)

    def do_activate(self):
        # The bubble itself was clicked (chimed calls Activate).
        identifier = self.launched_from.get("chime-id")
        self.launched("default", identifier.get_string() if identifier else None)

    def launched(self, action, identifier):
        info = self.launched_from.get("chime-info")
        details = ", ".join(info.unpack()) if info else ""
        print(f"Launched from notification {identifier}: action {action}; {details}", flush=True)
        chime().SetBadge("(su)", APP_ID, 0)
        print("Badge cleared.", flush=True)
        self.quit()

    def do_command_line(self, command_line):
        arguments = command_line.get_arguments()[1:]
        if arguments[:1] != ["schedule"]:
            command_line.printerr("usage: exam-reminders.py schedule [--at=TIME]\n")
            return 64
        options = command_line.get_options_dict()
        at = options.lookup_value("at", None)
        content = {
            "Title": GLib.Variant("s", "Exam: Linear Algebra"),
            "Body": GLib.Variant("s", "Room 4B. Bring a calculator."),
            "Badge": GLib.Variant("s", "+1"),
            "Action": GLib.Variant("as", ["open:Open the timetable"]),
            "Info": GLib.Variant("as", ["room=4B"]),
            "Deliver": GLib.Variant("as", ["desktop"]),
        }
        trigger = {"At": GLib.Variant("s", at.get_string() if at else "@%d" % (time.time() + 60))}
        try:
            next_usec = chime().Add("(ssa{sv}a{sv})", APP_ID, "exam", content, trigger)
        except GLib.Error as error:
            command_line.printerr(f"chime refused the reminder: {error.message}\n")
            return 1
        say(command_line, f"Scheduled the exam reminder for {next_usec // 1_000_000} (epoch seconds).\n")
        return 0


if __name__ == "__main__":
    sys.exit(Reminders().run(sys.argv))
