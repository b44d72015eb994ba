# Instructions executed and stall samples per source line, from an Nsight
# Compute source page (--print-source cuda,sass), largest first.
# Usage: python3 lines.py c1/source_cs_c.csv.gz COUNT [1: sort by stall samples]
import csv,gzip,sys,collections
fn=sys.argv[1]
f=gzip.open(fn,'rt'); r=csv.reader(f)
cur=None; res=[]; tot=0
for row in r:
    if not row: continue
    if row[0]=='File Path': cur=row[1].split('/')[-1]; continue
    if row[0] in('Function Name','Line No'): continue
    if row[0]!='':
        try: ie=int(row[7]); st=int(row[4])
        except: continue
        res.append((ie,st,cur,int(row[0]),row[1].strip()[:90])); tot+=ie
print('total instr',tot)
res.sort(key=lambda x:-x[int(sys.argv[3]) if len(sys.argv)>3 else 0])
for ie,st,fl,ln,s in res[:int(sys.argv[2])]: print(f'{ie:9d} {100*ie/tot:5.1f}% st{st:6d} {fl}:{ln} {s}')
