"""Builds the extra unit directories used by the checks."""
import os

def w(root, rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)

def build_desktop(root):
    w(root, "graphical.target", "[Unit]\nDescription=Graphical\nRequires=multi-user.target\nWants=display-manager.service\nAfter=multi-user.target display-manager.service\n")
    w(root, "multi-user.target", "[Unit]\nDescription=Multi-User\n")
    w(root, "display-manager.service", "[Unit]\nDescription=GDM\n; comment line\nAfter=dbus.service\nAfter=systemd-user-sessions.service\nWants=plymouth-quit.service\n[Service]\nExecStart=/usr/sbin/gdm3\n")
    w(root, "dbus.service", "[Unit]\nDescription=D-Bus\nRequires=dbus.socket\nAfter=dbus.socket\n")
    w(root, "dbus.socket", "[Unit]\nDescription=D-Bus socket\n[Install]\nWantedBy=sockets.target\n")
    w(root, "systemd-user-sessions.service", "[Unit]\nDescription=Permit user sessions\nAfter=remote-fs.target\n[Service]\nType=oneshot\n")
    w(root, "plymouth-quit.service", "[Unit]\nDescription=Stop splash\nAfter=zz-early.service\n")
    w(root, "zz-early.service", "[Unit]\nDescription=early thing\nBefore=plymouth-quit.service display-manager.service\n[Install]\nWantedBy=graphical.target\n")
    w(root, "avahi.service", "[Unit]\nDescription=mDNS\nBefore=cups.service\n[Install]\nWantedBy=multi-user.target\n")
    w(root, "cups.service", "[Unit]\nDescription=Printing\nAfter=network.target\n")
    w(root, "bluetooth.service", "[Unit]\nDescription=Bluetooth\nAfter=dbus.service\n")
    w(root, "bluetooth.service.d/override.conf", "[Unit]\nBefore=cups.service\nWants=obex.service\n")
    w(root, "obex.service", "[Unit]\nDescription=OBEX\nAfter=bluetooth.service\n")
    w(root, "accounts.service", "[Unit]\nDescription=Accounts\nAfter=dbus.service\nBefore=display-manager.service\n")
    os.makedirs(os.path.join(root, "multi-user.target.wants"), exist_ok=True)
    os.makedirs(os.path.join(root, "multi-user.target.requires"), exist_ok=True)
    os.makedirs(os.path.join(root, "graphical.target.wants"), exist_ok=True)
    os.symlink("../cups.service", os.path.join(root, "multi-user.target.wants", "cups.service"))
    os.symlink("../bluetooth.service", os.path.join(root, "multi-user.target.wants", "bluetooth.service"))
    os.symlink("../missing-vendor.service", os.path.join(root, "multi-user.target.wants", "missing-vendor.service"))
    os.symlink("../dbus.service", os.path.join(root, "multi-user.target.requires", "dbus.service"))
    os.symlink("../accounts.service", os.path.join(root, "graphical.target.wants", "accounts.service"))

def build_cycle(root):
    w(root, "boot.target", "[Unit]\nWants=a.service b.service\n")
    w(root, "a.service", "[Unit]\nAfter=b.service\n")
    w(root, "b.service", "[Unit]\nAfter=c.service\nWants=c.service\n")
    w(root, "c.service", "[Unit]\nAfter=a.service\n")
