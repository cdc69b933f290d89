#!/usr/bin/env bash
# Builds the Debian package of the netpath tool with dpkg-deb alone (no debian/ source
# tree, no debhelper): the static release binary, netpath(1), the shell completions, the
# units and the system user of Deploy/debian/, and the documentation Debian asks for.
#
#   scripts/build-deb.sh [VERSION]      → .build/deb/netpath_VERSION_ARCH.deb
#
# VERSION is the Debian version (default: `netpath --version` and -1; "0.1.0" becomes
# "0.1.0-1"). NETPATH_BINARY=path uses a release binary already built (CI: the one
# scripts/build-without-headers.sh made) instead of building one. DEB_MAINTAINER
# overrides the Maintainer field. The date of the last commit stamps the changelog and
# the files (SOURCE_DATE_EPOCH), so the same commit gives the same package.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=.build/deb
root=$out/root
debian=Deploy/debian

binary=${NETPATH_BINARY:-}
if [ -z "$binary" ]; then
  swift build -c release --disable-local-rpath --product netpath --static-swift-stdlib --scratch-path .build
  binary=.build/release/netpath
fi
[ -x "$binary" ] || { echo "build-deb: no binary at $binary" >&2; exit 1; }

upstream=$("$binary" --version | sed -n 's/^netpath //p')
version=${1:-$upstream}
[[ $version == *-* ]] || version=$version-1
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-NetPath maintainers <maintainers@netpath.invalid>}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

rm -rf "$root"
install -d -m 755 "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/netpath" \
  "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d" "$root/usr/lib/systemd/system" "$root/usr/lib/sysusers.d" \
  "$root/usr/share/lintian/overrides"

# The binary without its symbol table (Debian ships stripped binaries; Swift's metadata
# lives in sections of its own and stays).
install -m 755 "$binary" "$root/usr/bin/netpath"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/netpath"

# Made by the tool from its option table: what it parses is what they list.
"$binary" manpage | gzip -9n > "$root/usr/share/man/man1/netpath.1.gz"
"$binary" completions bash > "$root/usr/share/bash-completion/completions/netpath"
"$binary" completions zsh > "$root/usr/share/zsh/vendor-completions/_netpath"
"$binary" completions fish > "$root/usr/share/fish/vendor_completions.d/netpath.fish"

install -m 644 "$debian/netpath-exporter.service" "$debian/netpath-exporter.socket" "$debian/netpath-online.service" \
  "$root/usr/lib/systemd/system/"
install -m 644 "$debian/netpath.sysusers" "$root/usr/lib/sysusers.d/netpath.conf"
install -m 644 "$debian/lintian-overrides" "$root/usr/share/lintian/overrides/netpath"
install -m 644 "$debian/copyright" "$root/usr/share/doc/netpath/copyright"
gzip -9n < CHANGELOG.md > "$root/usr/share/doc/netpath/changelog.gz"
{
  printf 'netpath (%s) unstable; urgency=medium\n\n' "$version"
  printf '  * Built by scripts/build-deb.sh from commit %s; the changes are in\n' "$commit"
  printf '    /usr/share/doc/netpath/changelog.gz.\n\n'
  printf ' -- %s  %s\n' "$maintainer" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$root/usr/share/doc/netpath/changelog.Debian.gz"

install -m 755 "$debian/postinst" "$debian/prerm" "$debian/postrm" "$root/DEBIAN/"
# The shared libraries the binary needs, as dpkg-shlibdeps names their packages (it wants
# a debian/control beside it).
shlibs=$(mktemp -d)
trap 'rm -rf "$shlibs"' EXIT
mkdir "$shlibs/debian"
printf 'Source: netpath\n\nPackage: netpath\nArchitecture: any\n' > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$OLDPWD/$root/usr/bin/netpath" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@MAINTAINER@/$maintainer/" \
  -e "s/@INSTALLED_SIZE@/$size/" -e "s/@DEPENDS@/$depends/" "$debian/control" > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -printf '%P\n' | sort | sed 's|^|usr/|' | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

deb=$out/netpath_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "build-deb: $deb ($(du -k "$deb" | cut -f1) KiB; version $version, $arch)"
