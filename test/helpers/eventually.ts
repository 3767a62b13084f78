/**
 * Waiting in tests for what has no event to wait on (a call recorded by a stand-in, a log line, a
 * row): one helper, so that every wait has a deadline and a failure that names what was awaited.
 * "Nothing happened" is not waited for here: see settled.ts.
 */

/**
 * Asks `probe` every few ms until it answers something other than undefined or false, and returns
 * that. A probe that is itself slow (a request, a drain) is cut off at the deadline too.
 */
export async function eventually<T>(
  what: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${timeoutMs} ms for ${typeof what === 'string' ? what : what()}`)), timeoutMs);
  });
  late.catch(() => undefined);
  try {
    for (;;) {
      const found = await Promise.race([probe(), late]);
      if (found !== undefined && found !== false) return found;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 10)), late]);
    }
  } finally {
    clearTimeout(timer);
  }
}
