#!/bin/bash
# session 27 call 8: EB + SR segments in narrower column slabs (trial build,
# trial_slab.patch: LOOM_TRIAL_SLAB caps the slab, the group shrinks to it)
# on R-MAT and power-law graphs at N = 128..512; default, 32, 64, default.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-trial-slab.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q && make -j16 lib/libloom.la bench/gpu_bench) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"
mkdir -p /tmp/m; for m in soc-Slashdot0902 email-Enron pubmed_adj bcsstk33; do ln -sf "$R/benchdata/$m.mtx.gz" /tmp/m/; done
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=32,vdl,csc;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc"
for s in default 32 64 default2; do
  if [ "${s#default}" = "$s" ]; then export LOOM_TRIAL_SLAB=$s; else unset LOOM_TRIAL_SLAB; fi
  timeout 90 ./bench/gpu_bench --data /tmp/m --rmat 1e6,1e7 --n 128,256,512 --dtypes f32 --budget-ms 10 \
    --out "$OUT/slab_$s" > "$OUT/slab_${s}_console.txt" 2>&1
  echo "slab $s rc=$? at $(el)s"
done
python3 - "$OUT" <<'PY'
import csv,sys,collections
out=sys.argv[1]; t=collections.defaultdict(dict)
for s in ['default','32','64','default2']:
    try: rows=list(csv.reader(open('%s/slab_%s.csv'%(out,s))))
    except Exception: continue
    for r in rows[1:]:
        if len(r)>8 and r[6] in ('loom','cusparse'):
            key=(r[0][:18],int(r[5]),r[7] if r[6]=='loom' else 'cusparse-best')
            us=float(r[8])
            if us<=0: continue
            if key in t and s in t[key]: t[key][s]=min(t[key][s],us)
            else: t[key][s]=us
for k in sorted(t):
    d=t[k]; print('%-18s %4d %-28s'%k, ' '.join('%s=%.1f'%(s,d[s]) for s in ['default','32','64','default2'] if s in d))
PY
cd "$OUT" && tar czf slab.tgz slab_* && rm -f slab_*.csv slab_*_console.txt
