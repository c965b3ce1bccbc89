import csv,glob,collections,statistics
acc=collections.defaultdict(list)
for f in sorted(glob.glob('*.v*.r*.csv')):
    if '.steps.' in f: continue
    m,v,r,_=f.split('.')
    for row in csv.DictReader(open(f)):
        if row['status']!='ok': continue
        acc[(m,row['threads'],row['deployment'],v)].append((float(row['predicted_ms']),float(row['measured_ms']),float(row['recheck_ms'])))
for k in sorted(acc):
    v=acc[k]
    print(*k, 'pred %.3f'%v[0][0], 'meas', ' '.join('%.3f'%b for _,b,_ in v), 'rech', ' '.join('%.3f'%c for _,_,c in v),
          'err %+.1f%%'%statistics.median(100*(b-c)/c for _,b,c in v))
