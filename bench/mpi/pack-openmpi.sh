#!/bin/sh
# bench/mpi/pack-openmpi.sh DEST.tar.xz: this machine's OpenMPI runtime (Debian's openmpi-bin / libopenmpi3) as a
# relocatable tree, for a machine without MPI (the GPU machines of bench/mpi/gpu-mpi.sh): mpirun (orterun), orted,
# the libraries and plugins, the help files, and every shared library they load that is not the C library itself.
# On the other machine: OPAL_PREFIX=<tree> PATH=<tree>/bin:$PATH LD_LIBRARY_PATH=<tree>/lib/dep:<tree>/lib/x86_64-linux-gnu/openmpi/lib
set -eu
dest=${1:?usage: pack-openmpi.sh DEST.tar.xz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$tmp/openmpi
ompi=/usr/lib/x86_64-linux-gnu/openmpi
mkdir -p "$P/bin" "$P/lib/dep" "$P/lib/x86_64-linux-gnu" "$P/share"
cp -a "$ompi" "$P/lib/x86_64-linux-gnu/"
cp -L /usr/bin/orterun /usr/bin/orted "$P/bin/"
ln -s orterun "$P/bin/mpirun"
cp -a /usr/share/openmpi "$P/share/"
# the libraries' own files (libmpi.so.40 and friends live in /usr/lib/x86_64-linux-gnu, the links in $ompi/lib)
for l in libmpi.so.40 libopen-rte.so.40 libopen-pal.so.40 libmca_common_sm.so.40 libmca_common_monitoring.so.50 \
         libmca_common_ompio.so.41; do
  cp -L "/usr/lib/x86_64-linux-gnu/$l" "$P/lib/dep/"
done
# every other shared library any of them loads, but the C library's own
find "$P" -type f \( -name '*.so*' -o -path '*/bin/*' \) | while read -r f; do
  ldd "$f" 2>/dev/null | awk '/=> \// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libresolv|libgcc_s|libstdc\+\+)\.so' |
while read -r l; do
  [ -e "$P/lib/dep/$(basename "$l")" ] || cp -L "$l" "$P/lib/dep/"
done
tar -C "$tmp" -cJf "$dest" openmpi
echo "pack-openmpi.sh: $(du -sh "$dest" | cut -f1) in $dest ($(du -sh "$P" | cut -f1) unpacked)"
