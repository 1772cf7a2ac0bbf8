#!/usr/bin/env bash
# Builds crawlscope's Debian package from the release binary already built
# (`cargo build --release --locked`, or CI's `cargo test --release --locked`,
# which builds the same binary): the binary writes its own man pages and
# completions into target/deb-assets, then `cargo deb --no-build` packs them
# with it as [package.metadata.deb] in Cargo.toml lists them. Needs cargo-deb
# (`cargo install cargo-deb --locked`). Prints the .deb's path last.
set -euo pipefail
cd "$(dirname "$0")/.."

# cargo-deb takes the binary from the workspace's target directory, which
# CARGO_TARGET_DIR or a cargo config may move: ask cargo where it is.
target_dir=$(cargo metadata --format-version 1 --no-deps --locked \
  | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin="$target_dir/release/crawlscope"
if [ ! -x "$bin" ]; then
  echo "deb.sh: no release binary at $bin: run cargo build --release --locked first" >&2
  exit 1
fi

# cargo-deb reads assets outside target/release from the crate's own
# directory, so the generated ones go under ./target whatever target_dir is.
assets=target/deb-assets
rm -rf "$assets"
mkdir -p "$assets/man" "$assets/completions"

"$bin" man >"$assets/man/crawlscope.1"
# A page for every command a written page refers to (as
# crawlscope\-NAME(1)): the main page names each command's, and a command
# with subcommands names theirs (crawlscope-point-add), so none of the
# references is left dangling; clap's own `help` commands have no page.
refs() {
  sed -n 's/^crawlscope\\-\(.*\)(1)$/\1/p' "$1" | sed 's/\\-/-/g'
}
queue=$(refs "$assets/man/crawlscope.1")
if [ -z "$queue" ]; then
  echo "deb.sh: the main man page lists no commands" >&2
  exit 1
fi
while [ -n "$queue" ]; do
  next=
  for name in $queue; do
    case $name in help | *-help) continue ;; esac
    page=$assets/man/crawlscope-$name.1
    [ -e "$page" ] && continue
    "$bin" man "$name" >"$page"
    next="$next $(refs "$page")"
  done
  queue=$next
done

"$bin" completions bash >"$assets/completions/crawlscope.bash"
"$bin" completions zsh >"$assets/completions/_crawlscope"
"$bin" completions fish >"$assets/completions/crawlscope.fish"

# Debian asks every non-native package for a changelog.Debian of its own:
# one entry for this version, by the maintainer Cargo.toml names, dated
# with the commit packed (so the same commit gives the same entry).
version=$("$bin" --version | cut -d' ' -f2)
maintainer=$(sed -n 's/^maintainer = "\(.*\)"$/\1/p' Cargo.toml)
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
cat >"$assets/changelog.Debian" <<EOF
crawlscope ($version-1) unstable; urgency=medium

  * crawlscope $version; its changes are in
    /usr/share/doc/crawlscope/changelog.gz.

 -- $maintainer  $when
EOF

# --no-build: the binary above is the one packed, not a rebuild of it.
cargo deb --no-build
