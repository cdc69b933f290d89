#!/usr/bin/python3
# GLib's GNetworkMonitor as a peer (Benchmarks/run starts it with `ip netns exec NS`).
# Prints "START <available>" once, then "<available>" on every "network-changed" signal.
# The driver timestamps each line on receipt, exactly as it does for netpath and ip monitor.
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

monitor = Gio.NetworkMonitor.get_default()


def changed(_monitor, available):
    sys.stdout.write("%d\n" % int(available))
    sys.stdout.flush()


monitor.connect("network-changed", changed)
sys.stdout.write("START %d %s\n" % (int(monitor.get_network_available()), type(monitor).__name__))
sys.stdout.flush()
GLib.MainLoop().run()
