"""Session 42 call 4: the share of the resident kernel's warp stall samples
taken before the whole-strip barrier (the copy phase), from Nsight
Compute's SASS page (c4/sass_*.csv.gz).  The barrier is the first
BAR.SYNC after the copies' DEPBAR.  Run: python3 copy_share.py"""
import csv, gzip, glob, os
here = os.path.dirname(os.path.abspath(__file__))
for path in sorted(glob.glob(os.path.join(here, 'c4', 'sass_*.csv.gz'))):
    with gzip.open(path, 'rt') as f:
        r = list(csv.reader(f))
    kernel, hdr, rows = r[0][1], r[1], r[2:]
    col = hdr.index('Warp Stall Sampling (All Samples)')
    samples = [int(x[col]) if x[col].isdigit() else 0 for x in rows]
    total = sum(samples)
    seen_depbar, cut = False, None
    for i, x in enumerate(rows):
        if 'DEPBAR' in x[1] and 'LDGDEPBAR' not in x[1]:
            seen_depbar = True
        if seen_depbar and 'BAR.SYNC' in x[1]:
            cut = i
            break
    before = sum(samples[:cut + 1])
    print('%s\n  %s: %d samples, %.1f%% up to the strip barrier' %
          (os.path.basename(path), kernel.strip(), total, 100.0 * before / total))
