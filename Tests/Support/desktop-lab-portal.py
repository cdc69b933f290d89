#!/usr/bin/python3
"""A stand-in for xdg-desktop-portal's NetworkMonitor, for NetPath's desktop lab.

usage: /usr/bin/python3 desktop-lab-portal.py --available true --metered false --connectivity 4

Runs on the session bus named by DBUS_SESSION_BUS_ADDRESS (the lab's private one), owns
org.freedesktop.portal.Desktop and serves, at /org/freedesktop/portal/desktop:

  org.freedesktop.portal.NetworkMonitor (version 3)
    GetStatus() -> a{sv} {available: b, metered: b, connectivity: u}
    GetAvailable() -> b, GetMetered() -> b, GetConnectivity() -> u, CanReach(s, u) -> b
    signal changed()
  org.netpath.DesktopLab.Portal (the lab's own control)
    Set(s key, v value): key available (b), metered (b) or connectivity (u); emits changed
    when the value is new. Get() -> a{sv}, like GetStatus.

Needs gi (python3-gi, gir1.2-glib-2.0): run it with /usr/bin/python3, not pyenv's python3.
Prints "ready" once the name is owned; exits when the bus goes away or on SIGTERM.
"""
import argparse, signal, sys

from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.freedesktop.portal.NetworkMonitor">
    <method name="GetStatus"><arg type="a{sv}" name="status" direction="out"/></method>
    <method name="GetAvailable"><arg type="b" name="available" direction="out"/></method>
    <method name="GetMetered"><arg type="b" name="metered" direction="out"/></method>
    <method name="GetConnectivity"><arg type="u" name="connectivity" direction="out"/></method>
    <method name="CanReach">
      <arg type="s" name="hostname" direction="in"/><arg type="u" name="port" direction="in"/>
      <arg type="b" name="reachable" direction="out"/>
    </method>
    <signal name="changed"/>
    <property name="version" type="u" access="read"/>
  </interface>
  <interface name="org.netpath.DesktopLab.Portal">
    <method name="Set"><arg type="s" name="key" direction="in"/><arg type="v" name="value" direction="in"/></method>
    <method name="Get"><arg type="a{sv}" name="status" direction="out"/></method>
  </interface>
</node>
"""
PATH = "/org/freedesktop/portal/desktop"
MONITOR = "org.freedesktop.portal.NetworkMonitor"
TYPES = {"available": "b", "metered": "b", "connectivity": "u"}


def boolean(text):
    if text.lower() in ("true", "yes", "1"):
        return True
    if text.lower() in ("false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError("not a boolean: %s" % text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--available", type=boolean, default=True)
    parser.add_argument("--metered", type=boolean, default=False)
    parser.add_argument("--connectivity", type=int, default=4, choices=[1, 2, 3, 4])
    args = parser.parse_args()
    state = {"available": args.available, "metered": args.metered, "connectivity": args.connectivity}
    loop = GLib.MainLoop()
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    connection.set_exit_on_close(False)
    connection.connect("closed", lambda *_: loop.quit())

    def status():
        return GLib.Variant("(a{sv})", ({k: GLib.Variant(TYPES[k], v) for k, v in state.items()},))

    def on_call(conn, sender, path, interface, method, params, invocation):
        if method == "GetStatus" or method == "Get":
            invocation.return_value(status())
        elif method == "GetAvailable":
            invocation.return_value(GLib.Variant("(b)", (state["available"],)))
        elif method == "GetMetered":
            invocation.return_value(GLib.Variant("(b)", (state["metered"],)))
        elif method == "GetConnectivity":
            invocation.return_value(GLib.Variant("(u)", (state["connectivity"],)))
        elif method == "CanReach":
            invocation.return_value(GLib.Variant("(b)", (state["available"],)))
        elif method == "Set":
            key, value = params.unpack()
            if key not in TYPES:
                invocation.return_dbus_error("org.netpath.DesktopLab.Error", "no key %s (available, metered, connectivity)" % key)
                return
            if key == "connectivity":
                value = int(value)
                if value not in (1, 2, 3, 4):
                    invocation.return_dbus_error("org.netpath.DesktopLab.Error", "connectivity is 1 to 4")
                    return
            else:
                value = bool(value)
            changed = state[key] != value
            state[key] = value
            invocation.return_value(None)
            if changed:
                conn.emit_signal(None, PATH, MONITOR, "changed", None)
            print("set %s=%s%s" % (key, value, "" if changed else " (unchanged)"), flush=True)
        else:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)

    def on_get_property(conn, sender, path, interface, name):
        if name == "version":
            return GLib.Variant("u", 3)
        return None

    for interface in node.interfaces:
        connection.register_object(PATH, interface, on_call, on_get_property, None)

    def acquired(*_):
        print("ready", flush=True)

    def lost(*_):
        print("desktop-lab-portal: could not own org.freedesktop.portal.Desktop", file=sys.stderr, flush=True)
        loop.quit()

    Gio.bus_own_name_on_connection(connection, "org.freedesktop.portal.Desktop",
                                   Gio.BusNameOwnerFlags.DO_NOT_QUEUE, acquired, lost)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
