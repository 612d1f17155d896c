#!/usr/bin/python3
"""D-Bus peers for chime's desktop backend tests, on a private bus (--address).

notification-server: owns org.freedesktop.Notifications and records every call as one JSON line in --record
(arguments exactly, hints with their D-Bus types, and "time" in seconds since the epoch). Notify returns 1, 2, 3, ... (or the replaced id when that bubble
is still open). On cue it emits signals, through its own interface org.chime.Test.Control at /org/chime/Test:
EmitActionInvoked(u id, s key), EmitNotificationClosed(u id, u reason). CloseNotification closes the bubble and
emits NotificationClosed(id, 3). With --hold-notify it records Notify calls and never answers them. Prints "ready"
once it owns the name.

record-signals: records every signal matching --match as a JSON line in --record. Prints "ready" once the match is
installed.

login-manager: owns org.freedesktop.login1, as systemd-logind does on the system bus. Inhibit(what, who, why, mode)
returns one end of a pipe as the inhibitor's file descriptor and records the call; when every copy of that end is
closed, it records {"event": "released"}. On cue, through org.chime.Test.Control at /org/chime/Test, it emits
PrepareForSleep(b) (EmitPrepareForSleep). Prints "ready" once it owns the name.
"""

import argparse
import json
import os
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib


def typed(value):
    """A D-Bus value as {"type": signature, "value": plain value}."""
    if isinstance(value, dbus.Boolean):
        return {"type": "b", "value": bool(value)}
    if isinstance(value, dbus.Byte):
        return {"type": "y", "value": int(value)}
    for kind, signature in ((dbus.Int16, "n"), (dbus.UInt16, "q"), (dbus.Int32, "i"), (dbus.UInt32, "u"),
                            (dbus.Int64, "x"), (dbus.UInt64, "t")):
        if isinstance(value, kind):
            return {"type": signature, "value": int(value)}
    if isinstance(value, dbus.Double):
        return {"type": "d", "value": float(value)}
    if isinstance(value, dbus.ObjectPath):
        return {"type": "o", "value": str(value)}
    if isinstance(value, dbus.String):
        return {"type": "s", "value": str(value)}
    if isinstance(value, dbus.Dictionary):
        return {"type": "a{" + value.signature + "}", "value": {str(k): typed(v) for k, v in value.items()}}
    if isinstance(value, dbus.Array):
        return {"type": "a" + (value.signature or "?"), "value": [typed(v) for v in value]}
    return {"type": "?", "value": repr(value)}


class Recorder:
    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8")

    def write(self, record):
        record["time"] = time.time()
        self.file.write(json.dumps(record, sort_keys=True) + "\n")
        self.file.flush()


class NotificationServer(dbus.service.Object):
    def __init__(self, bus, recorder, capabilities, information, hold_notify, inhibited, inhibit_during_get=False,
                 act_before_reply=None):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.hold_notify = hold_notify
        self.act_before_reply = act_before_reply
        self.inhibited = inhibited
        self.inhibit_during_get = inhibit_during_get
        self.held = []
        self.recorder = recorder
        self.capabilities = capabilities
        self.information = information
        self.next_id = 1
        self.open = set()

    @dbus.service.method("org.freedesktop.Notifications", in_signature="", out_signature="as")
    def GetCapabilities(self):
        self.recorder.write({"method": "GetCapabilities"})
        return dbus.Array(self.capabilities, signature="s")

    @dbus.service.method("org.freedesktop.Notifications", in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        self.recorder.write({"method": "GetServerInformation"})
        return self.information

    @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u",
                         async_callbacks=("reply", "error"))
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout, reply, error):
        if replaces_id != 0 and replaces_id in self.open:
            identifier = int(replaces_id)
        else:
            identifier = self.next_id
            self.next_id += 1
        self.open.add(identifier)
        self.recorder.write({
            "method": "Notify", "id": identifier, "app_name": str(app_name), "replaces_id": int(replaces_id),
            "app_icon": str(app_icon), "summary": str(summary), "body": str(body),
            "actions": [str(a) for a in actions], "hints": {str(k): typed(v) for k, v in hints.items()},
            "expire_timeout": int(expire_timeout),
        })
        if self.act_before_reply:
            self.ActionInvoked(dbus.UInt32(identifier), self.act_before_reply)
        if self.hold_notify:
            self.held.append(reply)
        else:
            reply(dbus.UInt32(identifier))

    @dbus.service.method("org.freedesktop.Notifications", in_signature="u", out_signature="")
    def CloseNotification(self, identifier):
        self.recorder.write({"method": "CloseNotification", "id": int(identifier)})
        if identifier in self.open:
            self.open.discard(identifier)
            self.NotificationClosed(identifier, 3)

    @dbus.service.signal("org.freedesktop.Notifications", signature="us")
    def ActionInvoked(self, identifier, key):
        pass

    @dbus.service.signal("org.freedesktop.Notifications", signature="uu")
    def NotificationClosed(self, identifier, reason):
        pass

    # The do-not-disturb switch of KDE Plasma's server: the property Inhibited, announced by PropertiesChanged.
    # With inhibit_during_get, the switch is turned on while the first read of it is on its way: the change is
    # announced before the read's (now stale) answer, as it can happen on a real desktop.
    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        self.recorder.write({"method": "Get", "interface": str(interface), "name": str(name)})
        if interface == "org.freedesktop.Notifications" and name == "Inhibited":
            answer = self.inhibited
            if self.inhibit_during_get:
                self.inhibit_during_get = False
                self.inhibited = True
                self.PropertiesChanged(
                    "org.freedesktop.Notifications", dbus.Dictionary({"Inhibited": dbus.Boolean(True)}, signature="sv"),
                    dbus.Array([], signature="s"))
            return dbus.Boolean(answer)
        raise dbus.exceptions.DBusException(
            "no property %s.%s" % (interface, name), name="org.freedesktop.DBus.Error.UnknownProperty")

    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface == "org.freedesktop.Notifications":
            return dbus.Dictionary({"Inhibited": dbus.Boolean(self.inhibited)}, signature="sv")
        return dbus.Dictionary({}, signature="sv")

    @dbus.service.signal("org.freedesktop.DBus.Properties", signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class Control(dbus.service.Object):
    def __init__(self, bus, server):
        super().__init__(bus, "/org/chime/Test")
        self.server = server

    @dbus.service.method("org.chime.Test.Control", in_signature="us", out_signature="")
    def EmitActionInvoked(self, identifier, key):
        self.server.ActionInvoked(dbus.UInt32(identifier), key)

    @dbus.service.method("org.chime.Test.Control", in_signature="uu", out_signature="")
    def EmitNotificationClosed(self, identifier, reason):
        self.server.open.discard(int(identifier))
        self.server.NotificationClosed(dbus.UInt32(identifier), dbus.UInt32(reason))

    @dbus.service.method("org.chime.Test.Control", in_signature="b", out_signature="")
    def SetInhibited(self, inhibited):
        self.server.inhibited = bool(inhibited)
        self.server.PropertiesChanged(
            "org.freedesktop.Notifications", dbus.Dictionary({"Inhibited": dbus.Boolean(inhibited)}, signature="sv"),
            dbus.Array([], signature="s"))


class LoginManager(dbus.service.Object):
    def __init__(self, bus, recorder):
        super().__init__(bus, "/org/freedesktop/login1")
        self.recorder = recorder

    @dbus.service.method("org.freedesktop.login1.Manager", in_signature="ssss", out_signature="h")
    def Inhibit(self, what, who, why, mode):
        self.recorder.write({"method": "Inhibit", "what": str(what), "who": str(who), "why": str(why),
                             "mode": str(mode)})
        reading, writing = os.pipe()

        def closed(source, condition):
            self.recorder.write({"event": "released", "who": str(who)})
            os.close(source)
            return False

        GLib.io_add_watch(reading, GLib.IO_HUP | GLib.IO_ERR, closed)
        descriptor = dbus.types.UnixFd(writing)
        os.close(writing)
        return descriptor

    @dbus.service.signal("org.freedesktop.login1.Manager", signature="b")
    def PrepareForSleep(self, sleeping):
        pass


class LoginControl(dbus.service.Object):
    def __init__(self, bus, manager):
        super().__init__(bus, "/org/chime/Test")
        self.manager = manager

    @dbus.service.method("org.chime.Test.Control", in_signature="b", out_signature="")
    def EmitPrepareForSleep(self, sleeping):
        self.manager.PrepareForSleep(dbus.Boolean(sleeping))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["notification-server", "record-signals", "login-manager"])
    parser.add_argument("--address", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--capabilities", default="actions,body,body-markup")
    parser.add_argument("--information", default="recorder,chime-tests,1.0,1.2")
    parser.add_argument("--match", default="type='signal'")
    parser.add_argument("--hold-notify", action="store_true", help="record Notify calls but never answer them")
    parser.add_argument(
        "--act-before-reply", metavar="KEY", help="invoke the action KEY on each bubble before answering its Notify")
    parser.add_argument("--inhibited", action="store_true", help="start with the Inhibited property true")
    parser.add_argument(
        "--inhibit-during-get", action="store_true",
        help="turn Inhibited on, and announce it, while answering the first Get of it with the old value")
    options = parser.parse_args()

    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(options.address)
    recorder = Recorder(options.record)
    keep = []
    if options.mode == "notification-server":
        capabilities = [c for c in options.capabilities.split(",") if c]
        server = NotificationServer(
            bus, recorder, capabilities, tuple(options.information.split(",")), options.hold_notify,
            options.inhibited, options.inhibit_during_get, options.act_before_reply)
        keep += [server, Control(bus, server)]
        keep.append(dbus.service.BusName("org.freedesktop.Notifications", bus, do_not_queue=True))
    elif options.mode == "login-manager":
        manager = LoginManager(bus, recorder)
        keep += [manager, LoginControl(bus, manager)]
        keep.append(dbus.service.BusName("org.freedesktop.login1", bus, do_not_queue=True))
    else:
        def received(*arguments, **keywords):
            recorder.write({
                "path": keywords["path"], "interface": keywords["interface"], "member": keywords["member"],
                "arguments": [typed(a) for a in arguments],
            })
        bus.add_match_string(options.match)
        bus.add_message_filter(lambda _, message: received(
            *message.get_args_list(), path=message.get_path(), interface=message.get_interface(),
            member=message.get_member())
            if message.get_type() == 4 and message.get_interface() != "org.freedesktop.DBus" else None)
        # Round trip: the match is installed once the daemon has answered a later call.
        bus.get_unique_name()
        bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", "", [])
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    sys.exit(main())
