#!/bin/bash
# usage: bench/support/malloc-info.sh PID OUT.xml: glibc malloc_info of a running process (gdb attaches for a
# moment), summarized per arena: what the arenas took from the system and how much of it is free (kept by
# glibc, not in use). For npm run bench:memory -- --on-reading "bench/support/malloc-info.sh {pid} /tmp/mi-{subject}-{phase}.xml".
PID=$1; OUT=$2
gdb -p $PID -batch -nx -iex "set auto-solib-add on" \
  -ex "set \$f = (void*) fopen(\"$OUT\", \"w\")" \
  -ex "call (int) malloc_info(0, \$f)" \
  -ex "call (int) fclose(\$f)" -ex detach >/dev/null 2>&1
python3 - "$OUT" <<'PY'
import sys,re
import xml.etree.ElementTree as ET
t=ET.parse(sys.argv[1]).getroot()
for h in t.findall('heap'):
    tot={x.get('type'):int(x.get('size')) for x in h.findall('total')}
    sys_={x.get('type'):int(x.get('size')) for x in h.findall('system')}
    print(f"arena {h.get('nr')}: system current {sys_.get('current',0)/1048576:.1f} MB, free (fast+rest) {(tot.get('fast',0)+tot.get('rest',0))/1048576:.1f} MB, mmap {tot.get('mmap',0)/1048576:.1f} MB")
tot={x.get('type'):int(x.get('size')) for x in t.findall('total')}
sys_={x.get('type'):int(x.get('size')) for x in t.findall('system')}
print('ALL:', {k:round(v/1048576,1) for k,v in tot.items()}, 'system', {k:round(v/1048576,1) for k,v in sys_.items()})
PY
