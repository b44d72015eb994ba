#!/bin/bash
# session 39 call 8 (H200): call7.sh with these substitutions (the script
# that ran is their output): the candidate of call 8 (C = main + f32 pairs
# through the room, two a 16-byte load, one batch at a time (2 KB a
# block), the wide walk held to 40 registers) against main (A), four
# graphs and meshes in .devrun/mats, Nsight Compute's launch statistics
# for f32 only.  Carry as call 7.
sed -e 's/session 39 call 7 (H200): the candidate (C = main + f32 pairs through the/session 39 call 8 (H200): the candidate (C = main + f32 pairs through the/' \
    -e 's/# room, two a 16-byte load, and the rooms. kernels launched with the/# room, two a 16-byte load, one batch at a time (2 KB a block), the wide/' \
    -e 's/# carveout that holds their blocks, fit_carveout) against main (A):/# walk held to 40 registers) against main (A):/' \
    -e 's/c7/c8/g' -e 's/and five graphs/and four graphs/' -e 's/for dt in f32 f64; do/for dt in f32; do/' \
    "$(dirname "$0")/call7.sh" | bash
