#!/bin/sh
# Build tsionyx/nonogrid 0.7.3 (the Rust nonogram solver) with a tiny driver that
# bench/colour_vs_nonogrid.py talks to, entirely offline, outside this repository.
#
# Why this shape: crates.io is not reachable here, but git snapshots of nonogrid and of
# every crate its library needs (without default features) are, under $MIRROR/OWNER+NAME/repo.
# Each crate is exported at the version nonogrid's Cargo.lock pins (a tag, or the commit
# whose Cargo.toml carries that version), and cargo is pointed at the exports with
# `[patch.crates-io]` path entries. Nothing of nonogrid or its dependencies enters this
# repository: only this recipe and bench/nonogrid_driver.rs (our own code) live here.
#
#   sh bench/build_nonogrid.sh [BUILD_DIR]      # default /work/nonogrid-build
#   -> BUILD_DIR/driver/target/release/nonogrid-driver
set -eu
MIRROR=${MIRROR:-/work/.mirror}
OUT=${1:-/work/nonogrid-build}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/crates" "$OUT/driver/src"

# export NAME REPO REF [SUBDIR]: the crate's tree at REF, in $OUT/crates/NAME
export_crate() {
    name=$1; repo=$MIRROR/$2/repo; ref=$3; sub=${4:-}
    dest=$OUT/crates/$name
    if [ ! -f "$dest/.exported-$ref" ]; then
        rm -rf "$dest"; mkdir -p "$dest"
        if [ -n "$sub" ]; then
            git -C "$repo" archive "$ref" "$sub" | tar -x -C "$dest" --strip-components=1
        else
            git -C "$repo" archive "$ref" | tar -x -C "$dest"
        fi
        # a crate's own [workspace] table makes cargo treat it as a foreign workspace root
        sed -i '/^\[workspace\]/,/^\[/{/^\[workspace\]/d;/^members/d;/^exclude/d;/^resolver/d}' "$dest/Cargo.toml"
        touch "$dest/.exported-$ref"
    fi
}

export_crate nonogrid          tsionyx+nonogrid                v0.7.3
export_crate hashbrown-0.6     rust-lang+hashbrown             v0.6.3
export_crate hashbrown-0.11    rust-lang+hashbrown             v0.11.2
export_crate ahash             tkaitchuck+aHash                v0.2.19
export_crate const-random      tkaitchuck+constrandom          889dd4862b21e50544ca533108ce4611df44ba70  # const-random-macro: its macro/ path dependency
export_crate getrandom         rust-random+getrandom           v0.2.3
export_crate cfg-if            rust-lang+cfg-if                1.0.0
export_crate libc              rust-lang+libc                  3d544321448773c04984fb29e92d6c2c2e130622
export_crate lazy_static       rust-lang-nursery+lazy-static.rs 1.4.0
export_crate proc-macro-hack   dtolnay+proc-macro-hack         0.5.19
export_crate tiny-keccak       debris+tiny-keccak              f034411460d0012925052017c1658b3ce9cda532
export_crate crunchy           eira-fransham+crunchy           1bf90cf2d0a8cfcb2c5592275a23ab028dff6468
export_crate autocfg-0.1       cuviper+autocfg                 0.1.7
export_crate autocfg-1         cuviper+autocfg                 1.0.1
export_crate wasi              bytecodealliance+wasi           0.10.2
export_crate lru               jeromefroe+lru-rs               0.5.3
export_crate priority-queue    garro95+priority-queue          e4f750e2a66492b57dd0a20e42f990fca32fedb6
export_crate indexmap          indexmap-rs+indexmap            1.7.0
export_crate ordered-float     reem+rust-ordered-float         v2.8.0
export_crate num-traits        rust-num+num-traits             num-traits-0.2.14
export_crate log               rust-lang+log                   0.4.14
export_crate smallvec          servo+rust-smallvec             v1.7.0

C=$OUT/crates
cat > "$OUT/driver/Cargo.toml" <<TOML
[package]
name = "nonogrid-driver"
version = "0.1.0"
edition = "2018"

[dependencies]
nonogrid = { path = "$C/nonogrid", default-features = false }
libc = { version = "0.2", default-features = false }

[profile.release]
lto = true
codegen-units = 1
panic = "abort"

[patch.crates-io]
hashbrown = { path = "$C/hashbrown-0.6" }
hashbrown011 = { path = "$C/hashbrown-0.11", package = "hashbrown" }
ahash = { path = "$C/ahash" }
const-random = { path = "$C/const-random" }
getrandom = { path = "$C/getrandom" }
cfg-if = { path = "$C/cfg-if" }
libc = { path = "$C/libc" }
lazy_static = { path = "$C/lazy_static" }
proc-macro-hack = { path = "$C/proc-macro-hack" }
tiny-keccak = { path = "$C/tiny-keccak" }
crunchy = { path = "$C/crunchy" }
autocfg = { path = "$C/autocfg-0.1" }
autocfg1 = { path = "$C/autocfg-1", package = "autocfg" }
wasi = { path = "$C/wasi" }
lru = { path = "$C/lru" }
priority-queue = { path = "$C/priority-queue" }
indexmap = { path = "$C/indexmap" }
ordered-float = { path = "$C/ordered-float" }
num-traits = { path = "$C/num-traits" }
log = { path = "$C/log" }
smallvec = { path = "$C/smallvec" }
TOML
cp "$HERE/nonogrid_driver.rs" "$OUT/driver/src/main.rs"
cd "$OUT/driver"
cargo build --release --offline
echo "$OUT/driver/target/release/nonogrid-driver"
