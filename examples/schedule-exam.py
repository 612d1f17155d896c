#!/usr/bin/python3
"""An application's side of chime: schedules an exam reminder through chimed's application interface
(org.chime.Notifications1 on the session bus), lists what the application has pending, and with --cancel removes
it. Gio (python3-gi) only; the first call starts chimed if it is not running.

    examples/schedule-exam.py [--at=TIME] [--cancel]

TIME is as a notification file's At= takes it: '2027-01-18 07:00', '@1800000000'; default: an hour from now.
"""

import argparse
import datetime
import sys
import time

from gi.repository import Gio, GLib

APP_ID = "org.example.Reminders"


def local(usec):
    return datetime.datetime.fromtimestamp(usec / 1_000_000).astimezone().strftime("%a %Y-%m-%d %H:%M:%S %Z")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--at", help="when the reminder fires (default: an hour from now)")
    parser.add_argument("--cancel", action="store_true", help="remove the reminder instead")
    args = parser.parse_args()

    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    chime = Gio.DBusProxy.new_sync(
        bus, Gio.DBusProxyFlags.DO_NOT_LOAD_PROPERTIES, None,
        "org.chime.Notifications1", "/org/chime/Notifications1", "org.chime.Notifications1", None)
    try:
        if args.cancel:
            chime.RemovePending("(sas)", APP_ID, ["exam"])
            print("Cancelled exam.")
        else:
            content = {
                "Title": GLib.Variant("s", "Exam: Linear Algebra"),
                "Body": GLib.Variant("s", "Room 4B. Bring a calculator."),
                "Badge": GLib.Variant("s", "+1"),
                "Info": GLib.Variant("as", ["room=4B", "course=MA101"]),
            }
            trigger = {"At": GLib.Variant("s", args.at or "@%d" % (time.time() + 3600))}
            next_usec = chime.Add("(ssa{sv}a{sv})", APP_ID, "exam", content, trigger)
            print(f"Scheduled exam: {local(next_usec)}." if next_usec >= 0 else "Nothing ahead: not scheduled.")
        for identifier, content, _trigger, next_usec in chime.GetPending("(s)", APP_ID):
            print(f"  pending: {identifier} at {local(next_usec)}: {content.get('Title', '')}")
    except GLib.Error as error:
        # chimed's refusals: org.chime.Notifications1.Error.InvalidArgument and the message a file would get.
        name = Gio.DBusError.get_remote_error(error)
        message = error.message.removeprefix(f"GDBus.Error:{name}: ")
        print(f"chime: {name}: {message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
