/**
 * Two V8 heap snapshots (.heapsnapshot) compared: objects grouped by constructor (or by kind, for
 * strings, code, arrays and V8's own structures), with the count and self size of each group in
 * each, largest growth first. What a leak looks like: a group that grows with the requests served
 * (a map's entries, closures, listeners); what a steady footprint looks like: groups alike in both.
 * Used by the floor bench (BENCH_HEAP_SNAPSHOTS); also runnable alone:
 * `npx tsx bench/heap-diff.ts <early.heapsnapshot> <late.heapsnapshot> [top]`.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fmt } from './lib.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

/** Count and self size by group; the groups' names as DevTools' Summary view shows them. */
export function groups(file: string): Map<string, Group> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const out = new Map<string, Group>();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt] as number] as string;
    const name = data.strings[data.nodes[i + nameAt] as number] as string;
    const key =
      type === 'object' || type === 'native' || type === 'hidden'
        ? `${name}${type === 'object' ? '' : ` (${type})`}`
        : type === 'closure'
          ? '(closure)'
          : type === 'array' || type === 'object shape'
            ? `(${type}) ${name.slice(0, 40)}`
            : `(${type})`;
    const group = out.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += data.nodes[i + sizeAt] as number;
    out.set(key, group);
  }
  return out;
}

export function compareSnapshots(early: string, late: string, top = 25): string {
  const a = groups(early);
  const b = groups(late);
  const total = (m: Map<string, Group>) => [...m.values()].reduce((n, g) => n + g.bytes, 0);
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => {
    const x = a.get(key) ?? { count: 0, bytes: 0 };
    const y = b.get(key) ?? { count: 0, bytes: 0 };
    return { key, x, y, grew: y.bytes - x.bytes };
  });
  const mb = (n: number) => fmt(n / 1e6, 2);
  const lines = [
    `heap snapshots: ${mb(total(a))} MB → ${mb(total(b))} MB (self sizes; ${early} → ${late})`,
    'group: count, MB early → late (growth)',
  ];
  for (const r of rows.sort((p, q) => q.grew - p.grew).slice(0, top))
    lines.push(
      `  ${r.key.slice(0, 60).padEnd(60)} ${fmt(r.x.count, 0).padStart(9)} → ${fmt(r.y.count, 0).padStart(9)}  ${mb(r.x.bytes).padStart(7)} → ${mb(r.y.bytes).padStart(7)} (${r.grew >= 0 ? '+' : ''}${mb(r.grew)})`,
    );
  lines.push('largest groups in the late snapshot:');
  for (const r of rows.sort((p, q) => q.y.bytes - p.y.bytes).slice(0, top))
    lines.push(`  ${r.key.slice(0, 60).padEnd(60)} ${fmt(r.y.count, 0).padStart(9)}  ${mb(r.y.bytes).padStart(7)} MB`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [early, late, top] = process.argv.slice(2);
  if (early === undefined || late === undefined) throw new Error('usage: bench/heap-diff.ts <early> <late> [top]');
  console.log(compareSnapshots(early, late, top === undefined ? 25 : Number(top)));
}
