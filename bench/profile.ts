/**
 * A V8 CPU profile (.cpuprofile, as --cpu-prof or the inspector writes it) summed up: the
 * functions with the most self time, and self time by where the code lives (a package, a folder
 * of src/, Node's internals, the garbage collector). Idle time is left out of the total.
 * And a sampling heap profile (.heapprofile) summed up the same way, by bytes allocated.
 * Also runnable alone: `npx tsx bench/profile.ts <file.cpuprofile|file.heapprofile> [top]`.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fmt } from './lib.js';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a function's code lives: `undici`, `src/render`, `node:internal`, `(garbage collector)`. */
export function areaOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1] as string;
  // The last src/ or bench/ in the path: a build of the checkout lives under data/bench/build/.
  const src = /.*\/(src|bench)\/([^/]+)\//.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  const top = /.*\/(src|bench)\/[^/]+$/.exec(url);
  if (top) return top[1] as string;
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  return url;
}

function shortUrl(url: string): string {
  const m = /(node_modules\/.*|\/(?:src|bench)\/(?!build\/).*)$/.exec(url);
  return m ? (m[1] as string).replace(/^\//, '') : url;
}

export function summarize(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const nameOf = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'}${n.callFrame.url ? ` ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}` : ''}`;
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const name = nameOf(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  // Total time: a sample counts once for every distinct function on its stack.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') continue;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at);
      if (n === undefined) break;
      const name = nameOf(n);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([what, us]) => `  ${fmt((100 * us) / total).padStart(5)} %  ${fmt(us / 1000, 0).padStart(6)} ms  ${what}`);
  return [
    `CPU profile ${file}: ${fmt(total / 1000, 0)} ms of CPU sampled (idle left out)`,
    'self time by where the code lives:',
    ...rows(byArea, 15),
    `top ${top} functions by self time:`,
    ...rows(byFunction, top),
    `top ${top} functions by total time (their own and their callees'):`,
    ...rows(new Map([...inclusive].filter(([name]) => !name.startsWith('(root)'))), top),
  ].join('\n');
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/**
 * A sampling heap profile summed up: bytes allocated by the functions that allocated most, and by
 * where the code lives, per command when `commands` says how many were answered over it.
 */
export function summarizeAllocations(file: string, top = 25, commands?: number): string {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode, caller: string) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'}${url ? ` ${shortUrl(url)}:${lineNumber + 1}` : ''}`;
    if (node.selfSize > 0) {
      // Bytes a builtin allocated are put down to its caller: "JSON.stringify in pageEnd", not "stringify".
      const where = url === '' && caller !== '' ? `${name} ← ${caller}` : name;
      total += node.selfSize;
      byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize);
      const area = areaOf(url === '' ? caller.replace(/^.* (\S+):\d+$/, '$1') : url, functionName);
      byArea.set(area, (byArea.get(area) ?? 0) + node.selfSize);
    }
    for (const child of node.children) visit(child, url === '' ? caller : name);
  };
  visit(head, '');
  const each = (bytes: number) => (commands ? `, ${fmt(bytes / commands, 0).padStart(6)} B/command` : '');
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([what, bytes]) => `  ${fmt((100 * bytes) / total).padStart(5)} %  ${fmt(bytes / 1e6, 1).padStart(7)} MB${each(bytes)}  ${what}`,
      );
  return [
    `allocation profile ${file}: ${fmt(total / 1e6, 1)} MB sampled${commands ? ` over ${fmt(commands, 0)} commands, ${fmt(total / commands, 0)} bytes each` : ''}`,
    'bytes by where the code lives:',
    ...rows(byArea, 15),
    `top ${top} places by bytes allocated:`,
    ...rows(byFunction, top),
  ].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: tsx bench/profile.ts <file.cpuprofile|file.heapprofile> [top]');
    process.exit(2);
  }
  const n = top === undefined ? 25 : Number(top);
  console.log(file.endsWith('.heapprofile') ? summarizeAllocations(file, n) : summarize(file, n));
}
