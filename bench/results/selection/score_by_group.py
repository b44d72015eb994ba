#!/usr/bin/python3
"""score_by_group.py SWEEP SELECT - the CUDA selection scores split into R-MAT
and the other matrices: a model retrained on SWEEP, held out by matrix (the
5 folds of select_eval.py, depth 4, 100 trees, rate 0.1), and SELECT's auto
plans in C; then the same model trained on all of SWEEP, scored in sample.
Geometric means of oracle time / chosen time.  Uses select_eval.py and
tools/loom-train from this checkout."""
import os
import sys, importlib.machinery, importlib.util, glob, random, csv, math
p=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'select_eval.py')
spec=importlib.util.spec_from_file_location('se', p); se=importlib.util.module_from_spec(spec); spec.loader.exec_module(se)
lt=se.lt
if len(sys.argv) != 3 or not all(os.path.isfile(f) for f in sys.argv[1:]):
    sys.exit("usage: score_by_group.py SWEEP.csv.gz SELECT.csv[.gz] (two existing files)")
sweep, select, folds = sys.argv[1], sys.argv[2], 5
class A: pass
args=A(); args.trees=100; args.depth=4; args.rate=0.1; args.min_leaf=5; args.margin=0.1; args.lightgbm=False
rows=lt.read_sweeps(sorted(glob.glob(sweep)))
times, feats = lt.problems(rows)
matrices=sorted({k[0] for k in times}); rng=random.Random(2026); order=matrices[:]; rng.shuffle(order)
fold_of={m:i%folds for i,m in enumerate(order)}
held={}
for fold in range(folds):
    train=[k for k in times if fold_of[k[0]]!=fold]; test=[k for k in times if fold_of[k[0]]==fold]
    models=lt.fit(times,feats,train,args); fixed=se.best_fixed(times,train)
    for k in test: held[k]=se.score(times,k,lt.choose(models,feats[k],fixed,args.margin))
auto={}
for r in csv.reader(lt.open_text(select)):
    mat,be,dt,n,sel,strat,plan_ms,chosen_ms,best_ms,best_s=r
    key=(mat,be,dt,int(n))
    if sel!='auto' or key not in times: continue
    t=times[key].get(lt.product_name(be,strat,int(n)))
    auto[key]=min(times[key].values())/(t if t else float(chosen_ms))
def g(v): return math.exp(sum(map(math.log,v))/len(v))
for name,pick in (('rmat',lambda m:m.startswith('rmat')),('others',lambda m:not m.startswith('rmat')),('all',lambda m:True)):
    ks=[k for k in held if pick(k[0]) and k in auto]
    print('%-7s held-out retrain %.3f   auto in C %.3f  (%d)'%(name,g([held[k] for k in ks]),g([auto[k] for k in ks]),len(ks)))
models=lt.fit(times,feats,list(times),args); fixed=se.best_fixed(times,list(times))
ins={k:se.score(times,k,lt.choose(models,feats[k],fixed,args.margin)) for k in times}
for name,pick in (('rmat',lambda m:m.startswith('rmat')),('others',lambda m:not m.startswith('rmat')),('all',lambda m:True)):
    ks=[k for k in ins if pick(k[0])]
    print('%-7s in-sample retrain %.3f (%d)'%(name,g([ins[k] for k in ks]),len(ks)))
