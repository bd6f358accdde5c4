#!/usr/bin/env bash
# Installs the library into a scratch prefix and builds a small outside program against
# the installed copy through pkg-config (static and shared), then runs it.
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/baghchal/baghchal.h"
pc=$(find "$tmp/prefix" -name baghchal.pc | head -n 1)
test -n "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
cat > "$tmp/outside.c" <<'C'
#include <baghchal.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    position_t p;
    position_set_start(&p);
    if (perft(&p, 4) != 68204) return 1;
    char msg[128], obx[OBX_MAX_LEN];
    if (obx_parse("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1", &p, NULL, msg, sizeof msg) != BC_OK) return 2;
    obx_format(&p, NULL, OBX_V1, obx, sizeof obx);
    if (strcmp(obx, "T3T/5/2G2/5/T3T t g19 c0 - 0") != 0) return 3;
    puts("outside program ok");
    return 0;
}
C
flags=$(pkg-config --cflags baghchal)
libs=$(pkg-config --libs baghchal)
# Shared: the default link; run with the installed library on the loader path.
cc $flags "$tmp/outside.c" -o "$tmp/outside-shared" $libs
LD_LIBRARY_PATH=$(pkg-config --variable=libdir baghchal) "$tmp/outside-shared"
# Static: the archive and its private dependencies.
cc $flags "$tmp/outside.c" -o "$tmp/outside-static" $(pkg-config --variable=libdir baghchal)/libbaghchal.a \
  $(pkg-config --libs --static baghchal | sed 's/-lbaghchal//')
"$tmp/outside-static"
