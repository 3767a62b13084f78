/**
 * Preloaded by the memory suite (bench/memory.ts) into the compiled app it measures, as
 * `node --expose-gc --import ./bench/memory-hook.mjs dist/main.js` with BENCH_MEMORY_HOOK=1 and an
 * IPC channel; the app itself has no such thing. While the bench's load is paused, it answers the
 * bench's questions over that channel: the memory after a full collection, or a heap snapshot.
 * Plain JavaScript, because loading TypeScript through tsx would add its own ~60 MB to what is measured.
 */

import { writeHeapSnapshot } from 'node:v8';

if (process.env.BENCH_MEMORY_HOOK === '1' && process.send) {
  /** @type {(() => void) | undefined} */
  const gc = /** @type {{ gc?: () => void }} */ (globalThis).gc;
  process.on('message', (/** @type {{ id: number, kind: 'memory' | 'snapshot', path?: string }} */ message) => {
    const reply = (/** @type {Record<string, unknown>} */ body) => process.send?.({ id: message.id, ...body });
    if (message.kind === 'snapshot') return reply({ path: writeHeapSnapshot(message.path) });
    const before = process.memoryUsage();
    // Twice: what the first collection finds only through a finalizer or a weak reference goes in the second.
    gc?.();
    gc?.();
    const after = process.memoryUsage();
    return reply({
      gc: gc !== undefined,
      rssBefore: before.rss,
      heapBefore: before.heapUsed,
      rss: after.rss,
      heapUsed: after.heapUsed,
      heapTotal: after.heapTotal,
      external: after.external,
      arrayBuffers: after.arrayBuffers,
      maxRss: process.resourceUsage().maxRSS * 1024,
    });
  });
  // The channel must not keep a stopped app alive.
  process.channel?.unref();
}
