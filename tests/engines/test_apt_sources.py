"""A bootstrapped Debian base lists the same apt sources as the official image: the release, its
updates and its security suite, in deb822 form, and no ``sources.list`` of debootstrap's own."""

from __future__ import annotations

from modularrsi.engines.images import apt_sources, write_apt_sources

#: /etc/apt/sources.list.d/debian.sources of the official debian:bookworm-slim image (its snapshot
#: comments left out).
OFFICIAL_BOOKWORM = """\
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


def test_sources_match_the_official_image():
    assert apt_sources("bookworm") == OFFICIAL_BOOKWORM
    assert "Suites: trixie trixie-updates\n" in apt_sources("trixie")
    assert "Suites: trixie-security\n" in apt_sources("trixie")


def test_a_debootstrapped_root_gets_them_in_place_of_its_sources_list(tmp_path):
    (tmp_path / "etc" / "apt" / "sources.list.d").mkdir(parents=True)
    (tmp_path / "etc" / "apt" / "sources.list").write_text("deb http://deb.debian.org/debian bookworm main\n")
    write_apt_sources(tmp_path, "bookworm")
    assert not (tmp_path / "etc" / "apt" / "sources.list").exists()
    assert (tmp_path / "etc" / "apt" / "sources.list.d" / "debian.sources").read_text() == OFFICIAL_BOOKWORM
